-- A series write brings its occurrence rows in line in short steps; the master records how far (README "Recurring
-- events"). Added in place: a table rebuild would drop the Event triggers earlier migrations created.
ALTER TABLE "Event" ADD COLUMN "syncedThrough" DATETIME;

CREATE INDEX "Event_syncedThrough_idx" ON "Event"("syncedThrough");
