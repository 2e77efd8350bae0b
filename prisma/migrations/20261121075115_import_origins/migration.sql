-- CreateTable
CREATE TABLE "ImportOrigin" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "source" TEXT NOT NULL,
    "recordType" TEXT NOT NULL,
    "remoteId" INTEGER NOT NULL,
    "localId" INTEGER NOT NULL,
    "contentHash" TEXT NOT NULL,
    "remoteModified" TEXT,
    "importedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "ImportOrigin_recordType_localId_idx" ON "ImportOrigin"("recordType", "localId");

-- CreateIndex
CREATE UNIQUE INDEX "ImportOrigin_source_recordType_remoteId_key" ON "ImportOrigin"("source", "recordType", "remoteId");
