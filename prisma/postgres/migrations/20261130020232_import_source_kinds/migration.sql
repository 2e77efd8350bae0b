-- AlterTable
ALTER TABLE "ImportOrigin" ADD COLUMN     "writtenSeq" INTEGER;

-- AlterTable
ALTER TABLE "ImportSource" ADD COLUMN     "claimedUntil" TIMESTAMP(3),
ADD COLUMN     "kind" TEXT;

-- The sources made before sources had kinds were all iCalendar feeds.
UPDATE "ImportSource" SET "kind" = 'ical';
