-- Series masters leave the events' listing index by a flag instead of by their `recurrence` lines, which grow past
-- what a PostgreSQL index entry holds (src/graphql/events/recurrence-columns.ts writes both columns). The column is
-- added in place rather than by rebuilding the table as the generated migration would: a rebuild drops the Event
-- triggers that earlier migrations created.
ALTER TABLE "Event" ADD COLUMN "isSeriesMaster" BOOLEAN NOT NULL DEFAULT false;

-- The backfill changes nothing a client sees, so it is not a change of the masters: their change-log trigger is
-- left out while it runs (SQLite cannot disable a trigger, so it is dropped and created again as it was).
DROP TRIGGER "Event_change_update";
UPDATE "Event" SET "isSeriesMaster" = true WHERE "recurrence" <> '';
CREATE TRIGGER "Event_change_update" AFTER UPDATE ON "Event" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', NEW."id", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;

DROP INDEX "Event_listing_idx";
CREATE INDEX "Event_listing_idx" ON "Event"("startsAt", "id", "startLocal", "endLocal", "status", "hideFromListings", "isSeriesMaster");
