-- Every commit that changes the data version notifies channel "data_version" with "<schema> <version>", so server
-- processes learn of changes without reading the version per request (src/db/data-version-watch.ts). Notifications
-- are delivered at commit, in commit order, and only for committed transactions; several schemas may share one
-- database, hence the schema in the payload. Each writing statement notifies the version it made; a listener keeps
-- the largest.
CREATE OR REPLACE FUNCTION "bump_data_version"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  bumped BIGINT;
BEGIN
  UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1 RETURNING "version" INTO bumped;
  PERFORM pg_notify('data_version', TG_TABLE_SCHEMA || ' ' || bumped);
  RETURN NULL;
END $$;
