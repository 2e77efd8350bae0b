-- CreateTable
CREATE TABLE "Change" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "version" BIGINT NOT NULL,
    "recordType" TEXT NOT NULL,
    "recordId" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "changedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Change_version_seq_idx" ON "Change"("version", "seq");

-- CreateIndex
CREATE INDEX "Change_changedAt_idx" ON "Change"("changedAt");

-- The change log (src/db/change-log.ts): every create, update and delete of an event, venue, organizer or term is
-- recorded here by the writing transaction itself, whichever client wrote it. A change of an event's venue,
-- organizer or term links is an `updated` of that event, unless the event itself is being deleted (its links
-- cascade after it is gone). Each row takes the data version current in its transaction: SQLite has one writer at a
-- time, so `seq` is commit order and the version never decreases along it; (version, seq) orders as on PostgreSQL.
-- The time is written as the driver adapter writes DateTime values (ISO 8601, UTC).
CREATE TRIGGER "Event_change_insert" AFTER INSERT ON "Event" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', NEW."id", 'created', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "Event_change_update" AFTER UPDATE ON "Event" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', NEW."id", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "Event_change_delete" AFTER DELETE ON "Event" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', OLD."id", 'deleted', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "Venue_change_insert" AFTER INSERT ON "Venue" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'venue', NEW."id", 'created', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "Venue_change_update" AFTER UPDATE ON "Venue" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'venue', NEW."id", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "Venue_change_delete" AFTER DELETE ON "Venue" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'venue', OLD."id", 'deleted', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "Organizer_change_insert" AFTER INSERT ON "Organizer" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'organizer', NEW."id", 'created', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "Organizer_change_update" AFTER UPDATE ON "Organizer" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'organizer', NEW."id", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "Organizer_change_delete" AFTER DELETE ON "Organizer" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'organizer', OLD."id", 'deleted', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "Term_change_insert" AFTER INSERT ON "Term" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", NEW."taxonomy", NEW."id", 'created', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "Term_change_update" AFTER UPDATE ON "Term" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", NEW."taxonomy", NEW."id", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "Term_change_delete" AFTER DELETE ON "Term" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", OLD."taxonomy", OLD."id", 'deleted', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "EventVenue_change_insert" AFTER INSERT ON "EventVenue" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "EventVenue_change_update" AFTER UPDATE ON "EventVenue" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "EventVenue_change_delete" AFTER DELETE ON "EventVenue" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = OLD."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', OLD."eventId", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "EventOrganizer_change_insert" AFTER INSERT ON "EventOrganizer" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "EventOrganizer_change_update" AFTER UPDATE ON "EventOrganizer" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "EventOrganizer_change_delete" AFTER DELETE ON "EventOrganizer" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = OLD."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', OLD."eventId", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "EventTerm_change_insert" AFTER INSERT ON "EventTerm" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "EventTerm_change_update" AFTER UPDATE ON "EventTerm" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
CREATE TRIGGER "EventTerm_change_delete" AFTER DELETE ON "EventTerm" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = OLD."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', OLD."eventId", 'updated', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
