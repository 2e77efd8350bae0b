-- Recurring events (issue 15). Columns are added in place rather than by rebuilding the table as the generated
-- migration would: a rebuild drops the Event triggers (data version, term counts) that earlier migrations created.
ALTER TABLE "Event" ADD COLUMN "recurrence" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Event" ADD COLUMN "recurringEventId" INTEGER REFERENCES "Event" ("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Event" ADD COLUMN "originalStartsAt" DATETIME;
ALTER TABLE "Event" ADD COLUMN "originalStartLocal" TEXT;
ALTER TABLE "Event" ADD COLUMN "detached" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Event" ADD COLUMN "materializedUntil" DATETIME;

DROP INDEX "Event_listing_idx";
CREATE INDEX "Event_listing_idx" ON "Event"("startsAt", "id", "startLocal", "endLocal", "status", "hideFromListings", "recurrence");
CREATE INDEX "Event_materializedUntil_idx" ON "Event"("materializedUntil");
CREATE UNIQUE INDEX "Event_recurringEventId_originalStartsAt_key" ON "Event"("recurringEventId", "originalStartsAt");
