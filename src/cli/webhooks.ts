/**
 * `webhooks create|list|enable|delete|deliveries`: the URLs changes are POSTed to (src/webhooks). As with users, whoever runs
 * these can read the database anyway, so they act without credentials. A generated secret goes to stdout alone, once.
 */
import type { Config } from '../config.js';
import { createDb, type Db } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import {
  createWebhook,
  deleteWebhook,
  enableWebhook,
  findWebhook,
  listDeliveries,
  listWebhooks,
  WebhookInputError,
  type WebhookView,
} from '../webhooks/webhooks.js';
import { CliError, parseCommandLine } from './arguments.js';
import { printTable, when } from './users.js';

interface Command {
  usage: string;
  summary: string;
  positionals: string[];
  options: Array<'types' | 'secret'>;
  run(db: Db, config: Config, args: string[], options: { types?: string; secret?: string }): Promise<void>;
}

const statusCell = (webhook: WebhookView) =>
  webhook.status === 'disabled'
    ? `disabled ${when(webhook.disabledAt, '')}`
    : webhook.status === 'failing'
      ? `failing since ${when(webhook.failingSince, '')}`
      : 'active';

function webhookId(raw: string): number {
  if (!/^\d{1,9}$/.test(raw))
    throw new CliError(`<id> must be a webhook ID (a number, see: webhooks list), got "${raw}"`);
  return Number(raw);
}

const COMMANDS: Record<string, Command> = {
  create: {
    usage: 'webhooks create <url> [--types event,venue,organizer,category,tag] [--secret=S]',
    summary: 'POST every change to <url>, signed (a secret is made and shown once unless given)',
    positionals: ['url'],
    options: ['types', 'secret'],
    async run(db, config, [url], options) {
      const webhook = await createWebhook(
        db,
        { url: url!, types: options.types, secret: options.secret },
        config.webhooks.allowPrivate,
      ).catch((error) => {
        if (error instanceof WebhookInputError)
          throw new CliError(`${error.field === 'url' ? `the URL "${url}"` : `--${error.field}`} ${error.message}`);
        throw error;
      });
      console.error(
        `Created webhook ${webhook.id}: changes of ${webhook.types.join(', ')} are POSTed to ${webhook.url}.`,
      );
      if (options.secret === undefined) {
        console.log(webhook.secret);
        console.error(
          'That is its signing secret, for Standard Webhooks receivers (webhook-signature) and X-Calendar-Signature alike. ' +
            'Copy it now: it is not shown again.',
        );
      }
    },
  },
  list: {
    usage: 'webhooks list',
    summary: 'the webhooks (never their secrets): active, failing since when, or disabled when',
    positionals: [],
    options: [],
    async run(db) {
      const webhooks = await listWebhooks(db);
      if (webhooks.length === 0) return void console.log('No webhooks yet. Add one with: webhooks create <url>');
      printTable(
        ['ID', 'URL', 'TYPES', 'STATUS', 'CREATED'],
        webhooks.map((w) => [String(w.id), w.url, w.types.join(','), statusCell(w), when(w.createdAt, '')]),
      );
    },
  },
  enable: {
    usage: 'webhooks enable <id>',
    summary: 'send the changes committed from now on to a disabled webhook again',
    positionals: ['id'],
    options: [],
    async run(db, _config, [raw]) {
      const id = webhookId(raw!);
      const webhook = await enableWebhook(db, id);
      if (!webhook) throw new CliError(`no webhook with ID ${id}`);
      console.log(`Webhook ${id} is enabled: changes committed from now on are POSTed to ${webhook.url}.`);
    },
  },
  delete: {
    usage: 'webhooks delete <id>',
    summary: 'stop sending to a webhook (its deliveries go too)',
    positionals: ['id'],
    options: [],
    async run(db, _config, [raw]) {
      const id = webhookId(raw!);
      if (!(await deleteWebhook(db, id))) throw new CliError(`no webhook with ID ${id}`);
      console.log(`Deleted webhook ${id}: nothing more is sent to it.`);
    },
  },
  deliveries: {
    usage: 'webhooks deliveries <id>',
    summary: "a webhook's latest 100 deliveries: status, attempts, last error, next attempt",
    positionals: ['id'],
    options: [],
    async run(db, _config, [raw]) {
      const id = webhookId(raw!);
      if (!(await findWebhook(db, id))) throw new CliError(`no webhook with ID ${id}`);
      const deliveries = await listDeliveries(db, id);
      if (deliveries.length === 0) return void console.log(`No deliveries for webhook ${id} yet.`);
      printTable(
        ['DELIVERY', 'RECORD', 'ACTION', 'STATUS', 'ATTEMPTS', 'LAST ERROR', 'NEXT ATTEMPT', 'DELIVERED'],
        deliveries.map((d) => [
          d.id,
          `${d.recordType} ${d.recordId}`,
          d.action,
          d.status,
          String(d.attempts),
          d.lastError ?? '-',
          when(d.nextAttemptAt, '-'),
          when(d.deliveredAt, '-'),
        ]),
      );
    },
  },
};

export const WEBHOOK_USAGE: Array<[string, string]> = Object.values(COMMANDS).map((c) => [c.usage, c.summary]);

/** Runs `webhooks …` after applying pending migrations. */
export async function runWebhookCommand(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const command = action ? COMMANDS[action] : undefined;
  if (!command)
    throw new CliError(
      `${action ? `unknown command "webhooks ${action}"` : 'missing a command after "webhooks"'} (${Object.keys(COMMANDS).join(', ')})`,
    );
  if (rest.includes('--help') || rest.includes('-h'))
    return void console.log(`usage: ${command.usage}\n  ${command.summary}`);
  const options = Object.fromEntries(command.options.map((name) => [name, { type: 'string' as const }]));
  // Node's whole message: it says how to pass a value that starts with a dash (`--secret=-…`).
  const parsed = parseCommandLine(rest, options, command.usage, true);
  const missing = command.positionals[parsed.positionals.length];
  if (missing) throw new CliError(`missing <${missing}>; usage: ${command.usage}`);
  if (parsed.positionals.length > command.positionals.length)
    throw new CliError(
      `unexpected argument "${parsed.positionals[command.positionals.length]}"; usage: ${command.usage}`,
    );
  await migrate(config);
  const db = createDb(config);
  try {
    await command.run(db, config, parsed.positionals, parsed.values as { types?: string; secret?: string });
  } finally {
    await db.$disconnect();
  }
}
