-- DropIndex
DROP INDEX "WebhookDelivery_webhookId_recordType_recordId_status_idx";

-- DropIndex
DROP INDEX "WebhookDelivery_status_nextAttemptAt_idx";

-- CreateIndex
CREATE INDEX "WebhookDelivery_webhookId_status_nextAttemptAt_idx" ON "WebhookDelivery"("webhookId", "status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_webhookId_recordType_recordId_status_changeVersion_changeSeq_idx" ON "WebhookDelivery"("webhookId", "recordType", "recordId", "status", "changeVersion", "changeSeq");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_createdAt_idx" ON "WebhookDelivery"("status", "createdAt");

-- A record's deliveries to a webhook are sent in change order: only the earliest unfinished one is `pending`, the
-- later ones `waiting` until it is delivered or fails (src/webhooks/dispatcher.ts), so that the due deliveries of a
-- webhook can be read from an index.
UPDATE "WebhookDelivery" SET "status" = 'waiting'
WHERE "status" = 'pending' AND EXISTS (
  SELECT 1 FROM "WebhookDelivery" AS "earlier"
  WHERE "earlier"."webhookId" = "WebhookDelivery"."webhookId" AND "earlier"."recordType" = "WebhookDelivery"."recordType"
    AND "earlier"."recordId" = "WebhookDelivery"."recordId" AND "earlier"."status" = 'pending'
    AND ("earlier"."changeVersion" < "WebhookDelivery"."changeVersion"
      OR ("earlier"."changeVersion" = "WebhookDelivery"."changeVersion" AND "earlier"."changeSeq" < "WebhookDelivery"."changeSeq"))
);
