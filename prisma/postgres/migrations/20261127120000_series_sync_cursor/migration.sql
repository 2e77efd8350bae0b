-- A series write brings its occurrence rows in line in short steps; the master records how far (README "Recurring
-- events").
ALTER TABLE "Event" ADD COLUMN "syncedThrough" TIMESTAMP(3);

CREATE INDEX "Event_syncedThrough_idx" ON "Event"("syncedThrough");
