-- DropIndex
DROP INDEX "Event_status_startLocal_idx";

-- DropIndex
DROP INDEX "Event_startLocal_id_idx";

-- DropIndex
DROP INDEX "Event_startsAt_id_idx";

-- CreateTable
CREATE TABLE "DataVersion" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT DEFAULT 1,
    "version" BIGINT NOT NULL DEFAULT 0
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Term" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "taxonomy" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "parentId" INTEGER,
    "eventCount" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "Term_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Term" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Term" ("description", "id", "name", "parentId", "slug", "taxonomy") SELECT "description", "id", "name", "parentId", "slug", "taxonomy" FROM "Term";
DROP TABLE "Term";
ALTER TABLE "new_Term" RENAME TO "Term";
CREATE INDEX "Term_taxonomy_name_idx" ON "Term"("taxonomy", "name");
CREATE INDEX "Term_parentId_idx" ON "Term"("parentId");
CREATE UNIQUE INDEX "Term_taxonomy_slug_key" ON "Term"("taxonomy", "slug");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Event_listing_idx" ON "Event"("startsAt", "id", "startLocal", "endLocal", "status", "hideFromListings");

-- Every write to a record a reader can see increases DataVersion.version in the same transaction, so processes
-- sharing this database know when what they remember is stale (src/db/data-version.ts). Credentials are left out:
-- their last-used time changes on every authenticated request and nothing anonymous readers see depends on them.
INSERT INTO "DataVersion" ("id", "version") VALUES (1, 0);
CREATE TRIGGER "User_data_version_insert" AFTER INSERT ON "User" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "User_data_version_update" AFTER UPDATE ON "User" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "User_data_version_delete" AFTER DELETE ON "User" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Media_data_version_insert" AFTER INSERT ON "Media" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Media_data_version_update" AFTER UPDATE ON "Media" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Media_data_version_delete" AFTER DELETE ON "Media" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Event_data_version_insert" AFTER INSERT ON "Event" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Event_data_version_update" AFTER UPDATE ON "Event" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Event_data_version_delete" AFTER DELETE ON "Event" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Venue_data_version_insert" AFTER INSERT ON "Venue" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Venue_data_version_update" AFTER UPDATE ON "Venue" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Venue_data_version_delete" AFTER DELETE ON "Venue" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Organizer_data_version_insert" AFTER INSERT ON "Organizer" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Organizer_data_version_update" AFTER UPDATE ON "Organizer" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Organizer_data_version_delete" AFTER DELETE ON "Organizer" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Term_data_version_insert" AFTER INSERT ON "Term" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Term_data_version_update" AFTER UPDATE ON "Term" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "Term_data_version_delete" AFTER DELETE ON "Term" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "EventVenue_data_version_insert" AFTER INSERT ON "EventVenue" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "EventVenue_data_version_update" AFTER UPDATE ON "EventVenue" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "EventVenue_data_version_delete" AFTER DELETE ON "EventVenue" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "EventOrganizer_data_version_insert" AFTER INSERT ON "EventOrganizer" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "EventOrganizer_data_version_update" AFTER UPDATE ON "EventOrganizer" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "EventOrganizer_data_version_delete" AFTER DELETE ON "EventOrganizer" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "EventTerm_data_version_insert" AFTER INSERT ON "EventTerm" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "EventTerm_data_version_update" AFTER UPDATE ON "EventTerm" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "EventTerm_data_version_delete" AFTER DELETE ON "EventTerm" BEGIN UPDATE "DataVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;

-- Term.eventCount counts published events, as WordPress's term count does; kept here so every writer keeps it right.
UPDATE "Term" SET "eventCount" = (SELECT count(*) FROM "EventTerm" JOIN "Event" ON "Event"."id" = "EventTerm"."eventId" WHERE "EventTerm"."termId" = "Term"."id" AND "Event"."status" = 'publish');
CREATE TRIGGER "EventTerm_count_insert" AFTER INSERT ON "EventTerm"
WHEN (SELECT "status" FROM "Event" WHERE "id" = NEW."eventId") = 'publish'
BEGIN UPDATE "Term" SET "eventCount" = "eventCount" + 1 WHERE "id" = NEW."termId"; END;
-- After an event is deleted its links cascade with no event left to look at: the event's own trigger counted them.
CREATE TRIGGER "EventTerm_count_delete" AFTER DELETE ON "EventTerm"
WHEN (SELECT "status" FROM "Event" WHERE "id" = OLD."eventId") = 'publish'
BEGIN UPDATE "Term" SET "eventCount" = "eventCount" - 1 WHERE "id" = OLD."termId"; END;
CREATE TRIGGER "Event_term_count_status" AFTER UPDATE OF "status" ON "Event"
WHEN (OLD."status" = 'publish') <> (NEW."status" = 'publish')
BEGIN UPDATE "Term" SET "eventCount" = "eventCount" + (CASE WHEN NEW."status" = 'publish' THEN 1 ELSE -1 END)
  WHERE "id" IN (SELECT "termId" FROM "EventTerm" WHERE "eventId" = NEW."id"); END;
CREATE TRIGGER "Event_term_count_delete" BEFORE DELETE ON "Event"
WHEN OLD."status" = 'publish'
BEGIN UPDATE "Term" SET "eventCount" = "eventCount" - 1
  WHERE "id" IN (SELECT "termId" FROM "EventTerm" WHERE "eventId" = OLD."id"); END;
