-- CreateTable
CREATE TABLE "RenumberedRecord" (
    "recordType" TEXT NOT NULL,
    "oldId" INTEGER NOT NULL,
    "newId" INTEGER NOT NULL,

    CONSTRAINT "RenumberedRecord_pkey" PRIMARY KEY ("recordType","oldId")
);

-- Events, venues and organizers share one ID space, as WordPress posts do: no ID is ever both a venue's and an
-- event's. Existing databases keep their events' IDs; a venue whose ID an event also has, then an organizer whose ID
-- an event or venue also has, gets a fresh ID above every ID the three tables have used. Links follow (ON UPDATE
-- CASCADE); ImportOrigin has no foreign key and follows by hand. RenumberedRecord keeps old → new, for reads by old ID.
-- The highest ID the three tables have used: rows there now, and IDs handed out to rows deleted since.
CREATE FUNCTION "highest_post_id"() RETURNS INTEGER LANGUAGE sql STABLE AS $$
  SELECT coalesce(max("id"), 0) FROM (
    SELECT max("id") AS "id" FROM "Event" UNION ALL SELECT max("id") FROM "Venue" UNION ALL SELECT max("id") FROM "Organizer"
    UNION ALL SELECT last_value FROM "Event_id_seq" WHERE is_called UNION ALL SELECT last_value FROM "Venue_id_seq" WHERE is_called
    UNION ALL SELECT last_value FROM "Organizer_id_seq" WHERE is_called) AS "used"
$$;
INSERT INTO "RenumberedRecord" ("recordType", "oldId", "newId")
SELECT 'venue', "id", "highest_post_id"()
  + row_number() OVER (ORDER BY "id")
FROM "Venue" WHERE "id" IN (SELECT "id" FROM "Event");
UPDATE "Venue" SET "id" = "r"."newId" FROM "RenumberedRecord" AS "r" WHERE "r"."recordType" = 'venue' AND "r"."oldId" = "Venue"."id";

INSERT INTO "RenumberedRecord" ("recordType", "oldId", "newId")
SELECT 'organizer', "id", "highest_post_id"()
  + row_number() OVER (ORDER BY "id")
FROM "Organizer" WHERE "id" IN (SELECT "id" FROM "Event" UNION SELECT "id" FROM "Venue");
UPDATE "Organizer" SET "id" = "r"."newId" FROM "RenumberedRecord" AS "r" WHERE "r"."recordType" = 'organizer' AND "r"."oldId" = "Organizer"."id";

UPDATE "ImportOrigin" SET "localId" = "r"."newId" FROM "RenumberedRecord" AS "r"
WHERE "r"."recordType" = "ImportOrigin"."recordType" AND "r"."oldId" = "ImportOrigin"."localId";

-- One sequence numbers all three, from above every ID used so far.
CREATE SEQUENCE "Post_id_seq" AS INTEGER;
SELECT setval('"Post_id_seq"', "highest_post_id"(), true) WHERE "highest_post_id"() >= 1;
DROP FUNCTION "highest_post_id"();

-- The columns keep their own sequences as defaults (Prisma's autoincrement), now counting down from -1: a negative
-- ID is how the trigger knows that the insert gave none, and takes the shared sequence's next. A positive ID was
-- given on purpose (an import keeping the source's IDs, a migration): it is kept when no event, venue or organizer
-- has it, and the shared sequence moves past it. Changing an ID is checked the same way.
ALTER SEQUENCE "Event_id_seq" MINVALUE -2147483648 MAXVALUE -1 INCREMENT BY -1 START WITH -1 RESTART WITH -1;
ALTER SEQUENCE "Venue_id_seq" MINVALUE -2147483648 MAXVALUE -1 INCREMENT BY -1 START WITH -1 RESTART WITH -1;
ALTER SEQUENCE "Organizer_id_seq" MINVALUE -2147483648 MAXVALUE -1 INCREMENT BY -1 START WITH -1 RESTART WITH -1;

CREATE FUNCTION "assign_post_id"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' AND NEW."id" < 0 THEN
    NEW."id" := nextval('"Post_id_seq"');
    RETURN NEW;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW."id" = OLD."id" THEN
    RETURN NEW;
  END IF;
  -- One explicit ID at a time, so two writers cannot both find the same ID free in different tables.
  PERFORM pg_advisory_xact_lock(hashtext(TG_TABLE_SCHEMA || '.post_ids'));
  IF NEW."id" < 1
    OR (TG_TABLE_NAME <> 'Event' AND EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."id"))
    OR (TG_TABLE_NAME <> 'Venue' AND EXISTS (SELECT 1 FROM "Venue" WHERE "id" = NEW."id"))
    OR (TG_TABLE_NAME <> 'Organizer' AND EXISTS (SELECT 1 FROM "Organizer" WHERE "id" = NEW."id")) THEN
    RAISE EXCEPTION 'ID % is already used by another event, venue or organizer', NEW."id" USING ERRCODE = 'unique_violation';
  END IF;
  IF NEW."id" > (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM "Post_id_seq") THEN
    PERFORM setval('"Post_id_seq"', NEW."id", true);
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER "Event_post_id" BEFORE INSERT OR UPDATE OF "id" ON "Event" FOR EACH ROW EXECUTE FUNCTION "assign_post_id"();
CREATE TRIGGER "Venue_post_id" BEFORE INSERT OR UPDATE OF "id" ON "Venue" FOR EACH ROW EXECUTE FUNCTION "assign_post_id"();
CREATE TRIGGER "Organizer_post_id" BEFORE INSERT OR UPDATE OF "id" ON "Organizer" FOR EACH ROW EXECUTE FUNCTION "assign_post_id"();
