import type { ChangeRecordType as RecordType } from '../../db/change-log.js';
import {
  createWebhook,
  deleteWebhook,
  enableWebhook,
  shownNextAttempt,
  shownStatus,
  webhookStatus,
  WebhookInputError,
  type CreatedWebhook,
} from '../../webhooks/webhooks.js';
import { requireCapability } from '../access.js';
import { builder } from '../builder.js';
import { FieldErrors, NotFoundError } from '../errors.js';
import { ChangeActionEnum, ChangeRecordTypeEnum } from '../changes/record-type.js';
import { offsetConnection } from '../shared/connections.js';
import { databaseIdField, databaseIdOf, globalIdField, NodeInterface, registerNodeReader } from '../shared/node.js';

// Webhooks (src/webhooks): administrators only, as on the command line (`webhooks …`).

const WebhookDeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', {
  description: 'Where a delivery stands.',
  values: {
    PENDING: {
      value: 'pending',
      description:
        'Not sent yet, or failed and to be retried at `nextAttemptAt` (null while an earlier change of the same record is still pending).',
    },
    DELIVERED: { value: 'delivered', description: 'The receiver answered 2xx.' },
    FAILED: {
      value: 'failed',
      description:
        'Given up: still failing WEBHOOK_RETRY_FOR_MS after its first attempt, or not sent because the webhook was disabled (see `lastError`).',
    },
  },
});

const WebhookStatusEnum = builder.enumType('WebhookStatus', {
  description: 'Whether changes are sent to a webhook.',
  values: {
    ACTIVE: { value: 'active', description: 'Its last attempt succeeded (or none was made yet).' },
    FAILING: {
      value: 'failing',
      description:
        'Every attempt since `failingSince` failed; it is disabled once that lasts WEBHOOK_DISABLE_AFTER_MS.',
    },
    DISABLED: {
      value: 'disabled',
      description: 'Nothing is queued or sent to it since `disabledAt`, until `enableWebhook`.',
    },
  },
});

const WebhookDeliveryType = builder.prismaObject('WebhookDelivery', {
  description: 'One change sent (or to be sent) to a webhook.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description:
        'The delivery ID: the `id` of the POSTed body, its `X-Calendar-Delivery` header and its `webhook-id` header.',
    }),
    recordType: t.field({
      type: ChangeRecordTypeEnum,
      description: 'The kind of record that changed.',
      resolve: (d) => d.recordType as RecordType,
    }),
    recordId: t.exposeInt('recordId', { description: 'The database ID of the record that changed.' }),
    action: t.field({
      type: ChangeActionEnum,
      description:
        'What the change log recorded. The POSTed body’s `action` is what an anonymous reader sees of it: an update that ' +
        'made an event a draft is sent as `deleted`.',
      resolve: (d) => d.action as 'created' | 'updated' | 'deleted',
    }),
    status: t.field({
      type: WebhookDeliveryStatusEnum,
      description: 'Pending, delivered or failed.',
      resolve: (d) => shownStatus(d.status),
    }),
    attempts: t.exposeInt('attempts', { description: 'Attempts made so far.' }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description:
        'Why the last attempt failed (`answered 500`, a timeout, a network error), or why it was not sent (the webhook disabled); null after a success.',
    }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When it is attempted next, while pending; null otherwise, and while an earlier change of the same record is still pending.',
      resolve: shownNextAttempt,
    }),
    deliveredAt: t.expose('deliveredAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the receiver answered 2xx; null until then.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the change was queued for this webhook.' }),
  }),
});

const WebhookType = builder.prismaObject('Webhook', {
  description:
    'A URL every change of the chosen record types is POSTed to, signed with its secret (README "Webhooks"). The secret is shown only at creation.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('Webhook')),
    databaseId: t.exposeInt('id', databaseIdField('Webhook')),
    url: t.exposeString('url', { description: 'Where the changes are POSTed.' }),
    types: t.field({
      type: [ChangeRecordTypeEnum],
      description: 'The record types whose changes are sent.',
      resolve: (webhook) => webhook.types.split(',') as RecordType[],
    }),
    status: t.field({ type: WebhookStatusEnum, description: 'Active, failing or disabled.', resolve: webhookStatus }),
    failingSince: t.expose('failingSince', {
      type: 'DateTime',
      nullable: true,
      description: 'Since when every attempt to it failed; null while its last attempt succeeded.',
    }),
    disabledAt: t.expose('disabledAt', {
      type: 'DateTime',
      nullable: true,
      description:
        'When it was disabled, no attempt to it having succeeded for WEBHOOK_DISABLE_AFTER_MS; null while enabled.',
    }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      description: 'When it was created: changes committed after this are sent.',
    }),
    deliveries: t.connection(
      {
        type: WebhookDeliveryType,
        description:
          'Its deliveries, newest first: the pending ones, and the delivered or failed ones queued within the last WEBHOOK_DELIVERY_RETENTION_DAYS.',
        resolve: (webhook, args, ctx) => {
          const where = { webhookId: webhook.id };
          return offsetConnection(
            args,
            () => ctx.db.webhookDelivery.count({ where }),
            ({ offset, limit }) =>
              ctx.db.webhookDelivery.findMany({
                where,
                orderBy: [{ changeVersion: 'desc' }, { changeSeq: 'desc' }],
                skip: offset,
                take: limit,
              }),
          );
        },
      },
      { description: 'A page of a webhook’s deliveries, with their number.' },
      { description: 'A delivery in a page, with its cursor.' },
    ),
  }),
});

registerNodeReader('Webhook', (ctx, id, query) => {
  requireCapability(ctx, 'manage_webhooks');
  return ctx.db.webhook.findUnique({ ...query, where: { id } });
});

const WEBHOOK_ID = 'The webhook’s global ID (`id`) or database ID (`databaseId`).';
const webhookId = (id: string | number) => databaseIdOf('Webhook', id, 'id');

const CreatedWebhookType = builder.objectRef<CreatedWebhook>('CreatedWebhook').implement({
  description: 'A webhook just created, with its signing secret, shown this once.',
  fields: (t) => ({
    webhook: t.prismaField({
      type: WebhookType,
      description: 'The webhook.',
      resolve: (query, created, _args, ctx) =>
        ctx.db.webhook.findUniqueOrThrow({ ...query, where: { id: created.id } }),
    }),
    secret: t.exposeString('secret', {
      description:
        'The signing secret: `whsec_` and a base64 key when the service made it. Standard Webhooks libraries verify ' +
        '`webhook-signature` with it; `X-Calendar-Signature` is the HMAC (SHA-256) of each body keyed with it as text.',
    }),
  }),
});

const WebhookInput = builder.inputType('WebhookInput', {
  description: 'A new webhook.',
  fields: (t) => ({
    url: t.string({
      required: true,
      description: 'An http(s) URL on a public address (unless WEBHOOKS_ALLOW_PRIVATE=1).',
    }),
    types: t.field({ type: [ChangeRecordTypeEnum], description: 'The record types to send; all when left out.' }),
    secret: t.string({
      description:
        'The signing secret: `whsec_` and a base64 key of 24 to 64 bytes, or any text of 16 characters or more (its ' +
        'UTF-8 bytes are the Standard Webhooks key); a random `whsec_` one when left out.',
    }),
  }),
});

builder.queryFields((t) => ({
  webhooks: t.prismaField({
    type: [WebhookType],
    description: 'Every webhook, oldest first (administrators only).',
    resolve: (query, _root, _args, ctx) => {
      requireCapability(ctx, 'manage_webhooks');
      return ctx.db.webhook.findMany({ ...query, orderBy: { id: 'asc' } });
    },
  }),
  webhook: t.prismaField({
    type: WebhookType,
    nullable: true,
    description: 'One webhook by its ID, or null (administrators only).',
    args: { id: t.arg.id({ required: true, description: WEBHOOK_ID }) },
    resolve: (query, _root, args, ctx) => {
      requireCapability(ctx, 'manage_webhooks');
      return ctx.db.webhook.findUnique({ ...query, where: { id: webhookId(args.id) } });
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: CreatedWebhookType,
    description: 'Administrators only. Changes committed from now on are POSTed to the URL; the secret is shown once.',
    args: { input: t.arg({ type: WebhookInput, required: true, description: 'The URL, record types and secret.' }) },
    resolve: async (_root, { input }, ctx) => {
      requireCapability(ctx, 'manage_webhooks');
      return createWebhook(ctx.db, input, ctx.config.webhooks.allowPrivate).catch((error: unknown) => {
        if (!(error instanceof WebhookInputError)) throw error;
        const errors = new FieldErrors();
        errors.add(error.field, error.message);
        errors.throwIfAny();
        throw error;
      });
    },
  }),
  enableWebhook: t.prismaField({
    type: WebhookType,
    description:
      'Administrators only. Sends the changes committed from now on to a disabled webhook again (those made while it was disabled are not sent); an enabled one is left as it is.',
    args: { id: t.arg.id({ required: true, description: WEBHOOK_ID }) },
    resolve: async (query, _root, args, ctx) => {
      requireCapability(ctx, 'manage_webhooks');
      const id = webhookId(args.id);
      if (!(await enableWebhook(ctx.db, id))) throw new NotFoundError('Webhook', id);
      return ctx.db.webhook.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  deleteWebhook: t.boolean({
    description:
      'Administrators only. Stops sending to the webhook and deletes its deliveries; false when there was none.',
    args: { id: t.arg.id({ required: true, description: WEBHOOK_ID }) },
    resolve: (_root, args, ctx) => {
      requireCapability(ctx, 'manage_webhooks');
      return deleteWebhook(ctx.db, webhookId(args.id));
    },
  }),
}));
