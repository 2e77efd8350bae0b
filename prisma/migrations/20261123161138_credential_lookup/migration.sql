-- AlterTable
ALTER TABLE "Credential" ADD COLUMN "lookup" TEXT;

-- CreateTable
CREATE TABLE "Setting" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "Credential_lookup_key" ON "Credential"("lookup");
