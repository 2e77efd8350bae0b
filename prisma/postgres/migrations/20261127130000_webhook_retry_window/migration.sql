-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "disabledAt" TIMESTAMP(3),
ADD COLUMN     "failingSince" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "firstAttemptAt" TIMESTAMP(3);

-- A delivery is retried for WEBHOOK_RETRY_FOR_MS from its first attempt (src/webhooks/dispatcher.ts). Deliveries
-- already attempted have none recorded: their window starts at their next attempt.
