-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "body" TEXT;
