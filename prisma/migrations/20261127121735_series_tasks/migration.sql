-- Work on all of a series' occurrences (trash, delete, a split's move) follows its master in short steps, queued
-- here so that work cut short is taken up by any process (README "Recurring events").
-- CreateTable
CREATE TABLE "SeriesTask" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "kind" TEXT NOT NULL,
    "seriesId" INTEGER NOT NULL,
    "toSeriesId" INTEGER,
    "nextStart" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "steppedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "SeriesTask_seriesId_idx" ON "SeriesTask"("seriesId");

-- CreateIndex
CREATE INDEX "SeriesTask_toSeriesId_idx" ON "SeriesTask"("toSeriesId");
