-- CreateTable
CREATE TABLE "ImportSource" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "url" TEXT NOT NULL,
    "everySeconds" INTEGER,
    "eventStatus" TEXT NOT NULL DEFAULT 'publish',
    "categories" TEXT NOT NULL DEFAULT '',
    "authorId" INTEGER,
    "onMissing" TEXT NOT NULL DEFAULT 'trash',
    "localEdits" TEXT NOT NULL DEFAULT 'overwrite',
    "etag" TEXT,
    "lastModified" TEXT,
    "lastRunAt" DATETIME,
    "nextRunAt" DATETIME,
    "lastError" TEXT,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "lastReport" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ImportedItem" (
    "sourceId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "eventId" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "writtenSeq" INTEGER NOT NULL,

    PRIMARY KEY ("sourceId", "key"),
    CONSTRAINT "ImportedItem_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "ImportSource" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "ImportSource_nextRunAt_idx" ON "ImportSource"("nextRunAt");

-- CreateIndex
CREATE INDEX "ImportedItem_eventId_idx" ON "ImportedItem"("eventId");
