-- DropIndex
DROP INDEX "Event_listing_idx";

-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "detached" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "materializedUntil" TIMESTAMP(3),
ADD COLUMN     "originalStartLocal" TEXT,
ADD COLUMN     "originalStartsAt" TIMESTAMP(3),
ADD COLUMN     "recurrence" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "recurringEventId" INTEGER;

-- CreateIndex
CREATE INDEX "Event_listing_idx" ON "Event"("startsAt", "id", "startLocal", "endLocal", "status", "hideFromListings", "recurrence");

-- CreateIndex
CREATE INDEX "Event_materializedUntil_idx" ON "Event"("materializedUntil");

-- CreateIndex
CREATE UNIQUE INDEX "Event_recurringEventId_originalStartsAt_key" ON "Event"("recurringEventId", "originalStartsAt");

-- AddForeignKey
ALTER TABLE "Event" ADD CONSTRAINT "Event_recurringEventId_fkey" FOREIGN KEY ("recurringEventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;
