-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN "disabledAt" DATETIME;
ALTER TABLE "Webhook" ADD COLUMN "failingSince" DATETIME;

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN "firstAttemptAt" DATETIME;

-- A delivery is retried for WEBHOOK_RETRY_FOR_MS from its first attempt (src/webhooks/dispatcher.ts). Deliveries
-- already attempted have none recorded: their window starts at their next attempt.
