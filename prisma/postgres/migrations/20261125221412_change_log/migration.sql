-- CreateTable
CREATE TABLE "Change" (
    "seq" SERIAL NOT NULL,
    "version" BIGINT NOT NULL,
    "recordType" TEXT NOT NULL,
    "recordId" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "changedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Change_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE INDEX "Change_version_seq_idx" ON "Change"("version", "seq");

-- CreateIndex
CREATE INDEX "Change_changedAt_idx" ON "Change"("changedAt");

-- The change log (src/db/change-log.ts): every create, update and delete of an event, venue, organizer or term is
-- recorded here by the writing transaction itself, whichever client wrote it. A change of an event's venue,
-- organizer or term links is an `updated` of that event, unless the event itself is being deleted (its links
-- cascade after it is gone). Each row takes the data version its statement made (bump_data_version runs BEFORE each
-- writing statement and holds the DataVersion row lock until commit), so writing transactions have disjoint,
-- increasing version ranges in commit order and (version, seq) is commit order although `seq` alone is not.
CREATE FUNCTION "log_change"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  record_type TEXT := TG_ARGV[0];
  record_id INTEGER;
BEGIN
  IF TG_OP = 'DELETE' THEN record_id := OLD."id"; ELSE record_id := NEW."id"; END IF;
  IF record_type = 'term' THEN
    IF TG_OP = 'DELETE' THEN record_type := OLD."taxonomy"::text; ELSE record_type := NEW."taxonomy"::text; END IF;
  END IF;
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", record_type, record_id,
    CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END, now() AT TIME ZONE 'UTC'
  FROM "DataVersion" WHERE "id" = 1;
  RETURN NULL;
END $$;
CREATE FUNCTION "log_event_link_change"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  event_id INTEGER;
BEGIN
  IF TG_OP = 'DELETE' THEN event_id := OLD."eventId"; ELSE event_id := NEW."eventId"; END IF;
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
  SELECT "version", 'event', event_id, 'updated', now() AT TIME ZONE 'UTC' FROM "DataVersion"
  WHERE "id" = 1 AND EXISTS (SELECT 1 FROM "Event" WHERE "id" = event_id);
  IF TG_OP = 'UPDATE' AND OLD."eventId" <> NEW."eventId" THEN
    INSERT INTO "Change" ("version", "recordType", "recordId", "action", "changedAt")
    SELECT "version", 'event', OLD."eventId", 'updated', now() AT TIME ZONE 'UTC' FROM "DataVersion"
    WHERE "id" = 1 AND EXISTS (SELECT 1 FROM "Event" WHERE "id" = OLD."eventId");
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "Event_change" AFTER INSERT OR UPDATE OR DELETE ON "Event" FOR EACH ROW EXECUTE FUNCTION "log_change"('event');
CREATE TRIGGER "Venue_change" AFTER INSERT OR UPDATE OR DELETE ON "Venue" FOR EACH ROW EXECUTE FUNCTION "log_change"('venue');
CREATE TRIGGER "Organizer_change" AFTER INSERT OR UPDATE OR DELETE ON "Organizer" FOR EACH ROW EXECUTE FUNCTION "log_change"('organizer');
CREATE TRIGGER "Term_change" AFTER INSERT OR UPDATE OR DELETE ON "Term" FOR EACH ROW EXECUTE FUNCTION "log_change"('term');
CREATE TRIGGER "EventVenue_change" AFTER INSERT OR UPDATE OR DELETE ON "EventVenue" FOR EACH ROW EXECUTE FUNCTION "log_event_link_change"();
CREATE TRIGGER "EventOrganizer_change" AFTER INSERT OR UPDATE OR DELETE ON "EventOrganizer" FOR EACH ROW EXECUTE FUNCTION "log_event_link_change"();
CREATE TRIGGER "EventTerm_change" AFTER INSERT OR UPDATE OR DELETE ON "EventTerm" FOR EACH ROW EXECUTE FUNCTION "log_event_link_change"();
