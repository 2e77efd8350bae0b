-- Series masters leave the events' listing index by a flag instead of by their `recurrence` lines, which grow past
-- what a PostgreSQL index entry holds (about 2,700 bytes; src/graphql/events/recurrence-columns.ts writes both
-- columns).
DROP INDEX "Event_listing_idx";

ALTER TABLE "Event" ADD COLUMN "isSeriesMaster" BOOLEAN NOT NULL DEFAULT false;

-- The backfill changes nothing a client sees, so it is not a change of the masters: their change-log trigger is
-- left out while it runs.
ALTER TABLE "Event" DISABLE TRIGGER "Event_change";
UPDATE "Event" SET "isSeriesMaster" = true WHERE "recurrence" <> '';
ALTER TABLE "Event" ENABLE TRIGGER "Event_change";

CREATE INDEX "Event_listing_idx" ON "Event"("startsAt", "id", "startLocal", "endLocal", "status", "hideFromListings", "isSeriesMaster");
