import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { BACKUP_USAGE, runBackupCommand } from './cli/backup.js';
import { runSourcesCommand, SOURCES_USAGE } from './cli/sources.js';
import { CliError } from './cli/arguments.js';
import { ACCOUNT_GROUPS, ACCOUNT_USAGE, runAccountCommand } from './cli/users.js';
import { runWebhookCommand, WEBHOOK_USAGE } from './cli/webhooks.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { isClusterWorker, runPrimary } from './cluster.js';
import { isDatabaseBusy, SQLITE_BUSY_TIMEOUT_MS } from './db/client.js';
import { migrate } from './db/migrate.js';
import { createLogger, type Logger } from './logging/logger.js';
import { createApp, listen, shutdown } from './server.js';
import { SERVICE_VERSION } from './project-files.js';
import { startTracing, tracingWanted } from './tracing/tracing.js';

const COMMAND_USAGE: Array<[string, string]> = [
  ['serve [--port <n>] [--host <address>]', 'start the server (the default; npm start); the options as PORT and HOST'],
  ['migrate', 'apply pending migrations'],
  ['seed [--force]', 'load the demo data'],
  ['import <rest-root> [options]', 'copy a The Events Calendar site in (options: import --help)'],
  ['persisted-operations', 'print the registered /graphql operations as a JSON manifest { "<sha256>": "<document>" }'],
  ...BACKUP_USAGE,
  ...SOURCES_USAGE,
  ...ACCOUNT_USAGE,
  ...WEBHOOK_USAGE,
];
const WIDTH = Math.max(...COMMAND_USAGE.map(([usage]) => usage.length));
const HELP = [
  'usage: npx tsx src/cli.ts <command>   (or: npm run cli -- <command>)',
  ...COMMAND_USAGE.map(([usage, summary]) => `  ${usage.padEnd(WIDTH)}  ${summary}`),
].join('\n');

/** The database URL without a password, for the start-up line. */
function shownUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

function publicBase(config: Config, port: number): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host}:${port}`;
}

/** Serves until SIGTERM/SIGINT; every line it writes goes through the logger (JSON on stdout). */
async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  try {
    await startServing(config, logger);
  } catch (error) {
    logger.fatal({ err: error }, 'Cannot start');
    process.exit(1);
  }
}

async function startServing(config: Config, logger: Logger): Promise<void> {
  const database = shownUrl(config.databaseUrl);
  if (config.workers > 1 && !isClusterWorker()) {
    await runPrimary(config, logger);
    logger.info(
      { workers: config.workers, engine: config.engine, database },
      `Calendar events service: ${config.workers} worker processes on ${config.engine} (${database})`,
    );
    return;
  }
  const stopTracing = tracingWanted(process.env) ? await startTracing(SERVICE_VERSION) : undefined;
  const app = await createApp(config, { logger });
  const server = await listen(app);
  const port = (server.address() as AddressInfo).port;
  const base = publicBase(config, port);
  if (!isClusterWorker() || cluster.worker?.id === 1) {
    const graphql = `${base}/graphql`;
    const rest = `${base}/${config.restRoot}/calendar/events/v1/`;
    logger.info(
      { engine: config.engine, database, graphql, rest },
      `Calendar events service on ${config.engine} (${database}); GraphQL (GraphiQL in a browser): ${graphql}; REST: ${rest}`,
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${signal} received: finishing in-flight requests`);
    shutdown(server, app)
      .then(() => stopTracing?.())
      .then(
        () => {
          logger.info('Stopped');
          exitOnceLogged(logger, 0);
        },
        (error) => {
          logger.error({ err: error }, 'Shutdown failed');
          exitOnceLogged(logger, 1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Exits once the log lines are written (src/logging/logger.ts), or after 2 s if stdout does not take them. */
function exitOnceLogged(logger: Logger, code: number): void {
  setTimeout(() => process.exit(code), 2000).unref();
  logger.flush(() => process.exit(code));
}

/** The options of the commands this file runs itself; each takes these and nothing else (no other word either). */
const OWN_OPTIONS: Record<string, NonNullable<ParseArgsConfig['options']>> = {
  serve: { port: { type: 'string' }, host: { type: 'string' } },
  migrate: {},
  seed: { force: { type: 'boolean' } },
  'persisted-operations': {},
};

/**
 * The environment a command reads its configuration from: `serve`'s `--port` and `--host` stand for PORT and HOST
 * (and are checked as those are). An option or word the command does not take is refused, with its usage.
 */
function commandEnvironment(command: string, args: string[]): Record<string, string | undefined> {
  const options = OWN_OPTIONS[command];
  if (!options) return process.env;
  const usage = COMMAND_USAGE.find(([line]) => line.split(' ')[0] === command)![0];
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({ args, options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new CliError(`${error instanceof Error ? error.message : String(error)}; usage: ${usage}`);
  }
  const env = { ...process.env };
  if (typeof values.port === 'string') env.PORT = values.port;
  if (typeof values.host === 'string') env.HOST = values.host;
  return env;
}

async function main(): Promise<void> {
  const [command = 'serve', ...args] = process.argv.slice(2);
  if (command === 'help' || command === '--help' || command === '-h') return void console.log(HELP);
  const config = loadConfig(commandEnvironment(command, args));
  // Read once into the config; out of the environment, nothing started later (child processes, diagnostic reports)
  // sees CALENDAR_ADMIN_PASSWORD. No line this program prints contains it.
  delete process.env.CALENDAR_ADMIN_PASSWORD;
  if (command === 'serve') return serve(config);
  if (command === 'migrate') {
    const { applied, dataSteps } = await migrate(config);
    const done = [...applied, ...dataSteps.map((name) => `data step ${name}`)];
    console.log(done.length ? `Applied ${done.join(', ')}` : 'The database is up to date.');
    return;
  }
  if (command === 'seed') {
    const { seed } = await import('./seed.js');
    await seed(config);
    return;
  }
  if (command === 'import') {
    const { runImportCommand } = await import('./cli/import.js');
    process.exitCode = await runImportCommand(config, args);
    return;
  }
  if (command === 'persisted-operations') {
    const [{ registeredOperations }, { schema }] = await Promise.all([
      import('./limits/persisted-operations.js'),
      import('./graphql/schema.js'),
    ]);
    console.log(JSON.stringify(registeredOperations(config.persistedOperations, schema), null, 2));
    return;
  }
  if (ACCOUNT_GROUPS.includes(command)) return runAccountCommand(config, command, args);
  if (command === 'webhooks') return runWebhookCommand(config, args);
  if (command === 'backup' || command === 'restore') return runBackupCommand(config, command, args);
  if (command === 'sources') return runSourcesCommand(config, args);
  throw new CliError(
    `unknown command "${command}" (serve, migrate, seed, import, persisted-operations, backup, restore, sources, users, passwords, tokens, webhooks, help)`,
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`Cannot start: ${error.message}`);
    process.exit(1);
  }
  if (error instanceof CliError) {
    console.error(`Error: ${error.message}`);
    process.exit(1);
  }
  if (isDatabaseBusy(error)) {
    // Each statement waited SQLITE_BUSY_TIMEOUT_MS for the writer first; a stack trace would tell the user nothing more.
    console.error(
      `Error: the database stayed busy: another process held its writer for over ${SQLITE_BUSY_TIMEOUT_MS / 1000} s while this command waited; try again`,
    );
    process.exit(1);
  }
  // Anything else: one line, not a stack trace; LOG_LEVEL=debug (or trace) prints the whole error.
  const verbose = ['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '');
  console.error(verbose ? error : `Error: ${oneLineReason(error)} (LOG_LEVEL=debug shows the whole error)`);
  process.exit(1);
});

/**
 * An error's reason on one line: its message's first line, or the last for Prisma's errors (which open with the
 * call that failed and end with why), followed by its cause's when that says more.
 */
function oneLineReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const lines = error.message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const reason = (error.name.startsWith('PrismaClient') ? lines.at(-1) : lines[0]) ?? error.name;
  const cause = error.cause instanceof Error ? oneLineReason(error.cause) : '';
  return cause && !reason.includes(cause) ? `${reason}: ${cause}` : reason;
}
