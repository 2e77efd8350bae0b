-- DropIndex
DROP INDEX "Event_startLocal_id_idx";

-- DropIndex
DROP INDEX "Event_startsAt_id_idx";

-- DropIndex
DROP INDEX "Event_status_startLocal_idx";

-- AlterTable
ALTER TABLE "Term" ADD COLUMN     "eventCount" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "DataVersion" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "DataVersion_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Event_listing_idx" ON "Event"("startsAt", "id", "startLocal", "endLocal", "status", "hideFromListings");

-- Every write to a record a reader can see increases DataVersion.version in the same transaction, so processes
-- sharing this database know when what they remember is stale (src/db/data-version.ts). Credentials are left out:
-- their last-used time changes on every authenticated request and nothing anonymous readers see depends on them.
-- The functions keep the migration's search_path: the service's queries name their schema, its session may not.
-- The version is bumped BEFORE each writing statement, so a transaction locks the DataVersion row before any row the
-- term counts touch: writers queue on that one row and never wait on each other in opposite orders (deadlock).
INSERT INTO "DataVersion" ("id", "version") VALUES (1, 0);
CREATE FUNCTION "bump_data_version"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1;
  RETURN NULL;
END $$;
CREATE TRIGGER "User_data_version" BEFORE INSERT OR UPDATE OR DELETE ON "User" FOR EACH STATEMENT EXECUTE FUNCTION "bump_data_version"();
CREATE TRIGGER "Media_data_version" BEFORE INSERT OR UPDATE OR DELETE ON "Media" FOR EACH STATEMENT EXECUTE FUNCTION "bump_data_version"();
CREATE TRIGGER "Event_data_version" BEFORE INSERT OR UPDATE OR DELETE ON "Event" FOR EACH STATEMENT EXECUTE FUNCTION "bump_data_version"();
CREATE TRIGGER "Venue_data_version" BEFORE INSERT OR UPDATE OR DELETE ON "Venue" FOR EACH STATEMENT EXECUTE FUNCTION "bump_data_version"();
CREATE TRIGGER "Organizer_data_version" BEFORE INSERT OR UPDATE OR DELETE ON "Organizer" FOR EACH STATEMENT EXECUTE FUNCTION "bump_data_version"();
CREATE TRIGGER "Term_data_version" BEFORE INSERT OR UPDATE OR DELETE ON "Term" FOR EACH STATEMENT EXECUTE FUNCTION "bump_data_version"();
CREATE TRIGGER "EventVenue_data_version" BEFORE INSERT OR UPDATE OR DELETE ON "EventVenue" FOR EACH STATEMENT EXECUTE FUNCTION "bump_data_version"();
CREATE TRIGGER "EventOrganizer_data_version" BEFORE INSERT OR UPDATE OR DELETE ON "EventOrganizer" FOR EACH STATEMENT EXECUTE FUNCTION "bump_data_version"();
CREATE TRIGGER "EventTerm_data_version" BEFORE INSERT OR UPDATE OR DELETE ON "EventTerm" FOR EACH STATEMENT EXECUTE FUNCTION "bump_data_version"();

-- Term.eventCount counts published events, as WordPress's term count does; kept here so every writer keeps it right.
UPDATE "Term" SET "eventCount" = (SELECT count(*) FROM "EventTerm" JOIN "Event" ON "Event"."id" = "EventTerm"."eventId" WHERE "EventTerm"."termId" = "Term"."id" AND "Event"."status" = 'publish');
-- After an event is deleted its links cascade with no event left to look at: the event's own trigger counted them.
CREATE FUNCTION "count_term_link"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "Term" SET "eventCount" = "eventCount" + 1 WHERE "id" = NEW."termId"
      AND EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId" AND "status" = 'publish');
  ELSE
    UPDATE "Term" SET "eventCount" = "eventCount" - 1 WHERE "id" = OLD."termId"
      AND EXISTS (SELECT 1 FROM "Event" WHERE "id" = OLD."eventId" AND "status" = 'publish');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "EventTerm_count" AFTER INSERT OR DELETE ON "EventTerm" FOR EACH ROW EXECUTE FUNCTION "count_term_link"();
CREATE FUNCTION "count_event_terms"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD."status" = 'publish' THEN
      UPDATE "Term" SET "eventCount" = "eventCount" - 1 WHERE "id" IN (SELECT "termId" FROM "EventTerm" WHERE "eventId" = OLD."id");
    END IF;
    RETURN OLD;
  END IF;
  IF (OLD."status" = 'publish') <> (NEW."status" = 'publish') THEN
    UPDATE "Term" SET "eventCount" = "eventCount" + (CASE WHEN NEW."status" = 'publish' THEN 1 ELSE -1 END)
      WHERE "id" IN (SELECT "termId" FROM "EventTerm" WHERE "eventId" = NEW."id");
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER "Event_term_count_delete" BEFORE DELETE ON "Event" FOR EACH ROW EXECUTE FUNCTION "count_event_terms"();
CREATE TRIGGER "Event_term_count_status" AFTER UPDATE OF "status" ON "Event" FOR EACH ROW EXECUTE FUNCTION "count_event_terms"();
