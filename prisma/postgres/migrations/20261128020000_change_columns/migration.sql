-- The change log names the columns an update changed (src/cache/stale-tags.ts): a list whose filter and order read
-- none of them lists the same records as before, so the response cache keeps it without asking again. `columns` is
-- a comma-separated list of column names for an `updated` of a record, the relation's name (`venues`, `organizers`,
-- `terms`) for an event's link change, and NULL for `created` and `deleted` (every column). The columns are found by
-- comparing the old and new rows as JSON, so a column added later is named without changing the triggers.
ALTER TABLE "Change" ADD COLUMN "columns" TEXT;

CREATE OR REPLACE FUNCTION "log_change"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  record_type TEXT := TG_ARGV[0];
  record_id INTEGER;
  changed_columns TEXT;
BEGIN
  IF TG_OP = 'DELETE' THEN record_id := OLD."id"; ELSE record_id := NEW."id"; END IF;
  IF record_type = 'term' THEN
    IF TG_OP = 'DELETE' THEN record_type := OLD."taxonomy"::text; ELSE record_type := NEW."taxonomy"::text; END IF;
  END IF;
  -- An update of a series master stands for every column (NULL): its occurrences follow it, and the rows its upkeep
  -- adds or removes are not all logged (src/graphql/events/series-sync.ts).
  IF TG_OP = 'UPDATE' AND NOT (coalesce(to_jsonb(OLD)->>'isSeriesMaster', 'false') = 'true'
      OR coalesce(to_jsonb(NEW)->>'isSeriesMaster', 'false') = 'true') THEN
    SELECT coalesce(string_agg(new_row.key, ',' ORDER BY new_row.key), '') INTO changed_columns
    FROM jsonb_each(to_jsonb(NEW)) AS new_row JOIN jsonb_each(to_jsonb(OLD)) AS old_row USING ("key")
    WHERE new_row.value IS DISTINCT FROM old_row.value;
  END IF;
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", record_type, record_id,
    CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END, changed_columns,
    now() AT TIME ZONE 'UTC'
  FROM "DataVersion" WHERE "id" = 1;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "log_event_link_change"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  event_id INTEGER;
  relation TEXT := CASE TG_TABLE_NAME WHEN 'EventVenue' THEN 'venues' WHEN 'EventOrganizer' THEN 'organizers' ELSE 'terms' END;
BEGIN
  IF TG_OP = 'DELETE' THEN event_id := OLD."eventId"; ELSE event_id := NEW."eventId"; END IF;
  INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
  SELECT "version", 'event', event_id, 'updated', relation, now() AT TIME ZONE 'UTC' FROM "DataVersion"
  WHERE "id" = 1 AND EXISTS (SELECT 1 FROM "Event" WHERE "id" = event_id);
  IF TG_OP = 'UPDATE' AND OLD."eventId" <> NEW."eventId" THEN
    INSERT INTO "Change" ("version", "recordType", "recordId", "action", "columns", "changedAt")
    SELECT "version", 'event', OLD."eventId", 'updated', relation, now() AT TIME ZONE 'UTC' FROM "DataVersion"
    WHERE "id" = 1 AND EXISTS (SELECT 1 FROM "Event" WHERE "id" = OLD."eventId");
  END IF;
  RETURN NULL;
END $$;
