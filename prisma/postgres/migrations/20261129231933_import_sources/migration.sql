-- CreateTable
CREATE TABLE "ImportSource" (
    "id" SERIAL NOT NULL,
    "url" TEXT NOT NULL,
    "everySeconds" INTEGER,
    "eventStatus" TEXT NOT NULL DEFAULT 'publish',
    "categories" TEXT NOT NULL DEFAULT '',
    "authorId" INTEGER,
    "onMissing" TEXT NOT NULL DEFAULT 'trash',
    "localEdits" TEXT NOT NULL DEFAULT 'overwrite',
    "etag" TEXT,
    "lastModified" TEXT,
    "lastRunAt" TIMESTAMP(3),
    "nextRunAt" TIMESTAMP(3),
    "lastError" TEXT,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "lastReport" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportSource_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ImportedItem" (
    "sourceId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "eventId" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "writtenSeq" INTEGER NOT NULL,

    CONSTRAINT "ImportedItem_pkey" PRIMARY KEY ("sourceId","key")
);

-- CreateIndex
CREATE INDEX "ImportSource_nextRunAt_idx" ON "ImportSource"("nextRunAt");

-- CreateIndex
CREATE INDEX "ImportedItem_eventId_idx" ON "ImportedItem"("eventId");

-- AddForeignKey
ALTER TABLE "ImportedItem" ADD CONSTRAINT "ImportedItem_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "ImportSource"("id") ON DELETE CASCADE ON UPDATE CASCADE;
