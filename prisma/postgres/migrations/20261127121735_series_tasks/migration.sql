-- Work on all of a series' occurrences (trash, delete, a split's move) follows its master in short steps, queued
-- here so that work cut short is taken up by any process (README "Recurring events").
-- CreateTable
CREATE TABLE "SeriesTask" (
    "id" SERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "seriesId" INTEGER NOT NULL,
    "toSeriesId" INTEGER,
    "nextStart" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "steppedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SeriesTask_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SeriesTask_seriesId_idx" ON "SeriesTask"("seriesId");

-- CreateIndex
CREATE INDEX "SeriesTask_toSeriesId_idx" ON "SeriesTask"("toSeriesId");
