-- AlterTable
ALTER TABLE "Credential" ADD COLUMN     "lookup" TEXT;

-- CreateTable
CREATE TABLE "Setting" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "Credential_lookup_key" ON "Credential"("lookup");
