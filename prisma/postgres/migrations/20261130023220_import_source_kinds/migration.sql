-- AlterTable
ALTER TABLE "ImportOrigin" ADD COLUMN     "writtenSeq" INTEGER;

-- AlterTable
ALTER TABLE "ImportSource" ADD COLUMN     "claimedUntil" TIMESTAMP(3),
ADD COLUMN     "kind" TEXT;

-- AlterTable
ALTER TABLE "ImportedItem" ADD COLUMN     "writtenAt" TIMESTAMP(3);

-- The sources made before sources had kinds were all iCalendar feeds.
UPDATE "ImportSource" SET "kind" = 'ical';
