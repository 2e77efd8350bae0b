-- The change log names the columns an update changed (src/cache/stale-tags.ts): a list whose filter and order read
-- none of them lists the same records as before, so the response cache keeps it without asking again. `columns` is
-- a comma-separated list of column names for an `updated` of a record, the relation's name (`venues`, `organizers`,
-- `terms`) for an event's link change, and NULL for `created` and `deleted` (every column). An update of a series
-- master is NULL too: its occurrences follow it, and the rows its upkeep adds or removes are not all logged
-- (src/graphql/events/series-sync.ts), so a list may change by it whatever column changed. The update triggers are
-- made again with it; test/change-log-columns.test.ts checks that they name every column of their table, so a
-- migration adding a column must make them again too.
ALTER TABLE "Change" ADD COLUMN "columns" TEXT;

DROP TRIGGER "Event_change_update";
CREATE TRIGGER "Event_change_update" AFTER UPDATE ON "Event" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'event', NEW."id", 'updated', CASE WHEN OLD."isSeriesMaster" OR NEW."isSeriesMaster" THEN NULL ELSE substr(
    CASE WHEN OLD."id" IS NOT NEW."id" THEN ',id' ELSE '' END ||
    CASE WHEN OLD."title" IS NOT NEW."title" THEN ',title' ELSE '' END ||
    CASE WHEN OLD."description" IS NOT NEW."description" THEN ',description' ELSE '' END ||
    CASE WHEN OLD."excerpt" IS NOT NEW."excerpt" THEN ',excerpt' ELSE '' END ||
    CASE WHEN OLD."slug" IS NOT NEW."slug" THEN ',slug' ELSE '' END ||
    CASE WHEN OLD."status" IS NOT NEW."status" THEN ',status' ELSE '' END ||
    CASE WHEN OLD."authorId" IS NOT NEW."authorId" THEN ',authorId' ELSE '' END ||
    CASE WHEN OLD."publishedLocal" IS NOT NEW."publishedLocal" THEN ',publishedLocal' ELSE '' END ||
    CASE WHEN OLD."publishedAt" IS NOT NEW."publishedAt" THEN ',publishedAt' ELSE '' END ||
    CASE WHEN OLD."modifiedLocal" IS NOT NEW."modifiedLocal" THEN ',modifiedLocal' ELSE '' END ||
    CASE WHEN OLD."modifiedAt" IS NOT NEW."modifiedAt" THEN ',modifiedAt' ELSE '' END ||
    CASE WHEN OLD."timezone" IS NOT NEW."timezone" THEN ',timezone' ELSE '' END ||
    CASE WHEN OLD."startLocal" IS NOT NEW."startLocal" THEN ',startLocal' ELSE '' END ||
    CASE WHEN OLD."endLocal" IS NOT NEW."endLocal" THEN ',endLocal' ELSE '' END ||
    CASE WHEN OLD."startsAt" IS NOT NEW."startsAt" THEN ',startsAt' ELSE '' END ||
    CASE WHEN OLD."endsAt" IS NOT NEW."endsAt" THEN ',endsAt' ELSE '' END ||
    CASE WHEN OLD."allDay" IS NOT NEW."allDay" THEN ',allDay' ELSE '' END ||
    CASE WHEN OLD."cost" IS NOT NEW."cost" THEN ',cost' ELSE '' END ||
    CASE WHEN OLD."currencySymbol" IS NOT NEW."currencySymbol" THEN ',currencySymbol' ELSE '' END ||
    CASE WHEN OLD."currencyCode" IS NOT NEW."currencyCode" THEN ',currencyCode' ELSE '' END ||
    CASE WHEN OLD."currencyPosition" IS NOT NEW."currencyPosition" THEN ',currencyPosition' ELSE '' END ||
    CASE WHEN OLD."website" IS NOT NEW."website" THEN ',website' ELSE '' END ||
    CASE WHEN OLD."imageId" IS NOT NEW."imageId" THEN ',imageId' ELSE '' END ||
    CASE WHEN OLD."showMap" IS NOT NEW."showMap" THEN ',showMap' ELSE '' END ||
    CASE WHEN OLD."showMapLink" IS NOT NEW."showMapLink" THEN ',showMapLink' ELSE '' END ||
    CASE WHEN OLD."hideFromListings" IS NOT NEW."hideFromListings" THEN ',hideFromListings' ELSE '' END ||
    CASE WHEN OLD."sticky" IS NOT NEW."sticky" THEN ',sticky' ELSE '' END ||
    CASE WHEN OLD."featured" IS NOT NEW."featured" THEN ',featured' ELSE '' END ||
    CASE WHEN OLD."password" IS NOT NEW."password" THEN ',password' ELSE '' END ||
    CASE WHEN OLD."parentId" IS NOT NEW."parentId" THEN ',parentId' ELSE '' END ||
    CASE WHEN OLD."ticketed" IS NOT NEW."ticketed" THEN ',ticketed' ELSE '' END ||
    CASE WHEN OLD."recurrence" IS NOT NEW."recurrence" THEN ',recurrence' ELSE '' END ||
    CASE WHEN OLD."isSeriesMaster" IS NOT NEW."isSeriesMaster" THEN ',isSeriesMaster' ELSE '' END ||
    CASE WHEN OLD."recurringEventId" IS NOT NEW."recurringEventId" THEN ',recurringEventId' ELSE '' END ||
    CASE WHEN OLD."originalStartsAt" IS NOT NEW."originalStartsAt" THEN ',originalStartsAt' ELSE '' END ||
    CASE WHEN OLD."originalStartLocal" IS NOT NEW."originalStartLocal" THEN ',originalStartLocal' ELSE '' END ||
    CASE WHEN OLD."detached" IS NOT NEW."detached" THEN ',detached' ELSE '' END ||
    CASE WHEN OLD."materializedUntil" IS NOT NEW."materializedUntil" THEN ',materializedUntil' ELSE '' END ||
    CASE WHEN OLD."syncedThrough" IS NOT NEW."syncedThrough" THEN ',syncedThrough' ELSE '' END, 2) END, strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
  FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "Venue_change_update";
CREATE TRIGGER "Venue_change_update" AFTER UPDATE ON "Venue" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'venue', NEW."id", 'updated', substr(
    CASE WHEN OLD."id" IS NOT NEW."id" THEN ',id' ELSE '' END ||
    CASE WHEN OLD."name" IS NOT NEW."name" THEN ',name' ELSE '' END ||
    CASE WHEN OLD."slug" IS NOT NEW."slug" THEN ',slug' ELSE '' END ||
    CASE WHEN OLD."description" IS NOT NEW."description" THEN ',description' ELSE '' END ||
    CASE WHEN OLD."excerpt" IS NOT NEW."excerpt" THEN ',excerpt' ELSE '' END ||
    CASE WHEN OLD."status" IS NOT NEW."status" THEN ',status' ELSE '' END ||
    CASE WHEN OLD."authorId" IS NOT NEW."authorId" THEN ',authorId' ELSE '' END ||
    CASE WHEN OLD."publishedLocal" IS NOT NEW."publishedLocal" THEN ',publishedLocal' ELSE '' END ||
    CASE WHEN OLD."publishedAt" IS NOT NEW."publishedAt" THEN ',publishedAt' ELSE '' END ||
    CASE WHEN OLD."modifiedLocal" IS NOT NEW."modifiedLocal" THEN ',modifiedLocal' ELSE '' END ||
    CASE WHEN OLD."modifiedAt" IS NOT NEW."modifiedAt" THEN ',modifiedAt' ELSE '' END ||
    CASE WHEN OLD."address" IS NOT NEW."address" THEN ',address' ELSE '' END ||
    CASE WHEN OLD."city" IS NOT NEW."city" THEN ',city' ELSE '' END ||
    CASE WHEN OLD."country" IS NOT NEW."country" THEN ',country' ELSE '' END ||
    CASE WHEN OLD."province" IS NOT NEW."province" THEN ',province' ELSE '' END ||
    CASE WHEN OLD."state" IS NOT NEW."state" THEN ',state' ELSE '' END ||
    CASE WHEN OLD."zip" IS NOT NEW."zip" THEN ',zip' ELSE '' END ||
    CASE WHEN OLD."phone" IS NOT NEW."phone" THEN ',phone' ELSE '' END ||
    CASE WHEN OLD."stateProvince" IS NOT NEW."stateProvince" THEN ',stateProvince' ELSE '' END ||
    CASE WHEN OLD."website" IS NOT NEW."website" THEN ',website' ELSE '' END ||
    CASE WHEN OLD."showMap" IS NOT NEW."showMap" THEN ',showMap' ELSE '' END ||
    CASE WHEN OLD."showMapLink" IS NOT NEW."showMapLink" THEN ',showMapLink' ELSE '' END ||
    CASE WHEN OLD."imageId" IS NOT NEW."imageId" THEN ',imageId' ELSE '' END ||
    CASE WHEN OLD."latitude" IS NOT NEW."latitude" THEN ',latitude' ELSE '' END ||
    CASE WHEN OLD."longitude" IS NOT NEW."longitude" THEN ',longitude' ELSE '' END ||
    CASE WHEN OLD."password" IS NOT NEW."password" THEN ',password' ELSE '' END, 2), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
  FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "Organizer_change_update";
CREATE TRIGGER "Organizer_change_update" AFTER UPDATE ON "Organizer" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'organizer', NEW."id", 'updated', substr(
    CASE WHEN OLD."id" IS NOT NEW."id" THEN ',id' ELSE '' END ||
    CASE WHEN OLD."name" IS NOT NEW."name" THEN ',name' ELSE '' END ||
    CASE WHEN OLD."slug" IS NOT NEW."slug" THEN ',slug' ELSE '' END ||
    CASE WHEN OLD."description" IS NOT NEW."description" THEN ',description' ELSE '' END ||
    CASE WHEN OLD."excerpt" IS NOT NEW."excerpt" THEN ',excerpt' ELSE '' END ||
    CASE WHEN OLD."status" IS NOT NEW."status" THEN ',status' ELSE '' END ||
    CASE WHEN OLD."authorId" IS NOT NEW."authorId" THEN ',authorId' ELSE '' END ||
    CASE WHEN OLD."publishedLocal" IS NOT NEW."publishedLocal" THEN ',publishedLocal' ELSE '' END ||
    CASE WHEN OLD."publishedAt" IS NOT NEW."publishedAt" THEN ',publishedAt' ELSE '' END ||
    CASE WHEN OLD."modifiedLocal" IS NOT NEW."modifiedLocal" THEN ',modifiedLocal' ELSE '' END ||
    CASE WHEN OLD."modifiedAt" IS NOT NEW."modifiedAt" THEN ',modifiedAt' ELSE '' END ||
    CASE WHEN OLD."phone" IS NOT NEW."phone" THEN ',phone' ELSE '' END ||
    CASE WHEN OLD."website" IS NOT NEW."website" THEN ',website' ELSE '' END ||
    CASE WHEN OLD."email" IS NOT NEW."email" THEN ',email' ELSE '' END ||
    CASE WHEN OLD."imageId" IS NOT NEW."imageId" THEN ',imageId' ELSE '' END ||
    CASE WHEN OLD."password" IS NOT NEW."password" THEN ',password' ELSE '' END, 2), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
  FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "Term_change_update";
CREATE TRIGGER "Term_change_update" AFTER UPDATE ON "Term" BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", NEW."taxonomy", NEW."id", 'updated', substr(
    CASE WHEN OLD."id" IS NOT NEW."id" THEN ',id' ELSE '' END ||
    CASE WHEN OLD."taxonomy" IS NOT NEW."taxonomy" THEN ',taxonomy' ELSE '' END ||
    CASE WHEN OLD."name" IS NOT NEW."name" THEN ',name' ELSE '' END ||
    CASE WHEN OLD."slug" IS NOT NEW."slug" THEN ',slug' ELSE '' END ||
    CASE WHEN OLD."description" IS NOT NEW."description" THEN ',description' ELSE '' END ||
    CASE WHEN OLD."parentId" IS NOT NEW."parentId" THEN ',parentId' ELSE '' END ||
    CASE WHEN OLD."eventCount" IS NOT NEW."eventCount" THEN ',eventCount' ELSE '' END, 2), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
  FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "EventVenue_change_insert";
CREATE TRIGGER "EventVenue_change_insert" AFTER INSERT ON "EventVenue" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', 'venues', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "EventVenue_change_update";
CREATE TRIGGER "EventVenue_change_update" AFTER UPDATE ON "EventVenue" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', 'venues', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "EventVenue_change_delete";
CREATE TRIGGER "EventVenue_change_delete" AFTER DELETE ON "EventVenue" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = OLD."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'event', OLD."eventId", 'updated', 'venues', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "EventOrganizer_change_insert";
CREATE TRIGGER "EventOrganizer_change_insert" AFTER INSERT ON "EventOrganizer" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', 'organizers', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "EventOrganizer_change_update";
CREATE TRIGGER "EventOrganizer_change_update" AFTER UPDATE ON "EventOrganizer" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', 'organizers', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "EventOrganizer_change_delete";
CREATE TRIGGER "EventOrganizer_change_delete" AFTER DELETE ON "EventOrganizer" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = OLD."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'event', OLD."eventId", 'updated', 'organizers', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "EventTerm_change_insert";
CREATE TRIGGER "EventTerm_change_insert" AFTER INSERT ON "EventTerm" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', 'terms', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "EventTerm_change_update";
CREATE TRIGGER "EventTerm_change_update" AFTER UPDATE ON "EventTerm" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'event', NEW."eventId", 'updated', 'terms', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;

DROP TRIGGER "EventTerm_change_delete";
CREATE TRIGGER "EventTerm_change_delete" AFTER DELETE ON "EventTerm" WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = OLD."eventId") BEGIN
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'event', OLD."eventId", 'updated', 'terms', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM "DataVersion" WHERE "id" = 1; END;
