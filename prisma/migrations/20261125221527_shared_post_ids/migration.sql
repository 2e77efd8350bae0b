-- CreateTable
CREATE TABLE "RenumberedRecord" (
    "recordType" TEXT NOT NULL,
    "oldId" INTEGER NOT NULL,
    "newId" INTEGER NOT NULL,

    PRIMARY KEY ("recordType", "oldId")
);

-- Events, venues and organizers share one ID space, as WordPress posts do: no ID is ever both a venue's and an
-- event's. Existing databases keep their events' IDs; a venue whose ID an event also has, then an organizer whose ID
-- an event or venue also has, gets a fresh ID above every ID the three tables have used. Migrations run with foreign
-- keys off, so the links and ImportOrigin follow by hand. RenumberedRecord keeps old → new, for reads by old ID.
-- The highest ID the three tables have used: rows there now, and IDs handed out to rows deleted since (AUTOINCREMENT).
CREATE TEMP VIEW "highest_post_id" AS SELECT coalesce(max("id"), 0) AS "top" FROM (
  SELECT max("id") AS "id" FROM "Event" UNION ALL SELECT max("id") FROM "Venue" UNION ALL SELECT max("id") FROM "Organizer"
  UNION ALL SELECT "seq" FROM "sqlite_sequence" WHERE "name" IN ('Event', 'Venue', 'Organizer'));

INSERT INTO "RenumberedRecord" ("recordType", "oldId", "newId")
SELECT 'venue', "id", (SELECT "top" FROM "highest_post_id") + row_number() OVER (ORDER BY "id")
FROM "Venue" WHERE "id" IN (SELECT "id" FROM "Event");
UPDATE "Venue" SET "id" = (SELECT "newId" FROM "RenumberedRecord" WHERE "recordType" = 'venue' AND "oldId" = "Venue"."id")
WHERE "id" IN (SELECT "oldId" FROM "RenumberedRecord" WHERE "recordType" = 'venue');
UPDATE "EventVenue" SET "venueId" = (SELECT "newId" FROM "RenumberedRecord" WHERE "recordType" = 'venue' AND "oldId" = "EventVenue"."venueId")
WHERE "venueId" IN (SELECT "oldId" FROM "RenumberedRecord" WHERE "recordType" = 'venue');

INSERT INTO "RenumberedRecord" ("recordType", "oldId", "newId")
SELECT 'organizer', "id", (SELECT "top" FROM "highest_post_id") + row_number() OVER (ORDER BY "id")
FROM "Organizer" WHERE "id" IN (SELECT "id" FROM "Event" UNION SELECT "id" FROM "Venue");
UPDATE "Organizer" SET "id" = (SELECT "newId" FROM "RenumberedRecord" WHERE "recordType" = 'organizer' AND "oldId" = "Organizer"."id")
WHERE "id" IN (SELECT "oldId" FROM "RenumberedRecord" WHERE "recordType" = 'organizer');
UPDATE "EventOrganizer" SET "organizerId" = (SELECT "newId" FROM "RenumberedRecord" WHERE "recordType" = 'organizer' AND "oldId" = "EventOrganizer"."organizerId")
WHERE "organizerId" IN (SELECT "oldId" FROM "RenumberedRecord" WHERE "recordType" = 'organizer');

UPDATE "ImportOrigin" SET "localId" = (SELECT "newId" FROM "RenumberedRecord" AS "r" WHERE "r"."recordType" = "ImportOrigin"."recordType" AND "r"."oldId" = "ImportOrigin"."localId")
WHERE EXISTS (SELECT 1 FROM "RenumberedRecord" AS "r" WHERE "r"."recordType" = "ImportOrigin"."recordType" AND "r"."oldId" = "ImportOrigin"."localId");

-- AUTOINCREMENT numbers each table past its own sqlite_sequence row; the three rows are kept at the highest ID any
-- of them has used, so the next insert in any of them takes the next free ID of all three.
INSERT INTO "sqlite_sequence" ("name", "seq")
SELECT "t"."name", 0 FROM (SELECT 'Event' AS "name" UNION ALL SELECT 'Venue' UNION ALL SELECT 'Organizer') AS "t"
WHERE "t"."name" NOT IN (SELECT "name" FROM "sqlite_sequence");
UPDATE "sqlite_sequence" SET "seq" = (SELECT "top" FROM "highest_post_id") WHERE "name" IN ('Event', 'Venue', 'Organizer');
DROP VIEW "highest_post_id";

-- An ID given on purpose (an import keeping the source's IDs, a migration) is refused when another of the three has it.
CREATE TRIGGER "Event_post_id_free" BEFORE INSERT ON "Event"
WHEN EXISTS (SELECT 1 FROM "Venue" WHERE "id" = NEW."id") OR EXISTS (SELECT 1 FROM "Organizer" WHERE "id" = NEW."id")
BEGIN SELECT RAISE(ABORT, 'this ID is already used by another event, venue or organizer'); END;
CREATE TRIGGER "Event_post_id_free_update" BEFORE UPDATE OF "id" ON "Event"
WHEN EXISTS (SELECT 1 FROM "Venue" WHERE "id" = NEW."id") OR EXISTS (SELECT 1 FROM "Organizer" WHERE "id" = NEW."id")
BEGIN SELECT RAISE(ABORT, 'this ID is already used by another event, venue or organizer'); END;
CREATE TRIGGER "Venue_post_id_free" BEFORE INSERT ON "Venue"
WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."id") OR EXISTS (SELECT 1 FROM "Organizer" WHERE "id" = NEW."id")
BEGIN SELECT RAISE(ABORT, 'this ID is already used by another event, venue or organizer'); END;
CREATE TRIGGER "Venue_post_id_free_update" BEFORE UPDATE OF "id" ON "Venue"
WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."id") OR EXISTS (SELECT 1 FROM "Organizer" WHERE "id" = NEW."id")
BEGIN SELECT RAISE(ABORT, 'this ID is already used by another event, venue or organizer'); END;
CREATE TRIGGER "Organizer_post_id_free" BEFORE INSERT ON "Organizer"
WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."id") OR EXISTS (SELECT 1 FROM "Venue" WHERE "id" = NEW."id")
BEGIN SELECT RAISE(ABORT, 'this ID is already used by another event, venue or organizer'); END;
CREATE TRIGGER "Organizer_post_id_free_update" BEFORE UPDATE OF "id" ON "Organizer"
WHEN EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."id") OR EXISTS (SELECT 1 FROM "Venue" WHERE "id" = NEW."id")
BEGIN SELECT RAISE(ABORT, 'this ID is already used by another event, venue or organizer'); END;

CREATE TRIGGER "Event_post_id_sequence" AFTER INSERT ON "Event"
BEGIN UPDATE "sqlite_sequence" SET "seq" = NEW."id" WHERE "name" IN ('Event', 'Venue', 'Organizer') AND "seq" < NEW."id"; END;
CREATE TRIGGER "Event_post_id_sequence_update" AFTER UPDATE OF "id" ON "Event"
BEGIN UPDATE "sqlite_sequence" SET "seq" = NEW."id" WHERE "name" IN ('Event', 'Venue', 'Organizer') AND "seq" < NEW."id"; END;
CREATE TRIGGER "Venue_post_id_sequence" AFTER INSERT ON "Venue"
BEGIN UPDATE "sqlite_sequence" SET "seq" = NEW."id" WHERE "name" IN ('Event', 'Venue', 'Organizer') AND "seq" < NEW."id"; END;
CREATE TRIGGER "Venue_post_id_sequence_update" AFTER UPDATE OF "id" ON "Venue"
BEGIN UPDATE "sqlite_sequence" SET "seq" = NEW."id" WHERE "name" IN ('Event', 'Venue', 'Organizer') AND "seq" < NEW."id"; END;
CREATE TRIGGER "Organizer_post_id_sequence" AFTER INSERT ON "Organizer"
BEGIN UPDATE "sqlite_sequence" SET "seq" = NEW."id" WHERE "name" IN ('Event', 'Venue', 'Organizer') AND "seq" < NEW."id"; END;
CREATE TRIGGER "Organizer_post_id_sequence_update" AFTER UPDATE OF "id" ON "Organizer"
BEGIN UPDATE "sqlite_sequence" SET "seq" = NEW."id" WHERE "name" IN ('Event', 'Venue', 'Organizer') AND "seq" < NEW."id"; END;
