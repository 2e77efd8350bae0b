-- AlterTable
ALTER TABLE "Media" ADD COLUMN     "filesize" INTEGER,
ADD COLUMN     "height" INTEGER,
ADD COLUMN     "mimeType" TEXT,
ADD COLUMN     "width" INTEGER;
