import Database from 'better-sqlite3';
import pg from 'pg';
import type { Config } from '../config.js';
import type { Logger } from '../logging/logger.js';
import { type Db, type DbTransaction, postgresConnectionString, postgresSchema, sqlitePath } from './client.js';

// The database's data version: reading it and locking it in a transaction, values remembered per version, and the
// watch that tells a server process the version now without a statement per question.

/**
 * The database's data version: a counter every write to a record readers can see increases in the writing
 * transaction (database triggers, see the `data_version` migration). Whatever a process remembers about the data is
 * current while the version it was computed at is still the version in the database, in whichever process the
 * writes happened. A server process learns of changes without asking each time: `DataVersionWatch` below.
 */
export async function readDataVersion(db: Db): Promise<bigint> {
  const row = await db.dataVersion.findUnique({ where: { id: 1 }, select: { version: true } });
  if (!row) throw new Error('DataVersion row 1 is missing: the database was not migrated by this service');
  return row.version;
}

/**
 * Takes the data-version row's write lock for the rest of the transaction, without changing it: writers on the same
 * database (in any process) then wait for this transaction to end. A check-then-write (is there a duplicate? is the
 * record already in the trash?) is then atomic. PostgreSQL locks the row; SQLite takes the database's write lock.
 */
export async function lockForWriting(tx: DbTransaction): Promise<void> {
  await tx.dataVersion.update({ where: { id: 1 }, data: { version: { increment: 0 } }, select: { id: true } });
}

/**
 * Values computed from the data, each remembered with the data version it was computed at and answered again only
 * while that version is current. Bounded: the least recently used key goes first.
 */
export class VersionedMemo<T> {
  private readonly entries = new Map<string, { version: bigint; value: T }>();

  constructor(private readonly capacity: number) {}

  async get(key: string, version: bigint, compute: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry && entry.version === version) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.value;
    }
    const value = await compute();
    this.entries.delete(key);
    this.entries.set(key, { version, value });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }
}

/** The channel the data-version trigger notifies on, with `<schema> <version>` as payload (PostgreSQL migrations). */
export const DATA_VERSION_CHANNEL = 'data_version';

/**
 * Knows the database's data version (`readDataVersion` above) without a round trip to the database per question, and
 * learns of every change, in whichever process it was made, within a bound stated per engine in docs/performance.md ("What keeps
 * reads fast", the response cache). The process's own writes are known at once.
 */
export interface DataVersionWatch {
  /** The data version now. */
  current(): Promise<bigint>;
  /** This process committed a write: the next answer reads the version from the database. */
  writeCommitted(): void;
  close(): Promise<void>;
}

/**
 * SQLite: a read-only connection of its own reads the version row synchronously, a prepared statement on the same
 * file that costs microseconds and no trip through Prisma. In WAL mode it sees every committed write of every
 * process, so nothing is ever stale and there is nothing to be told.
 */
export class SqliteDataVersionWatch implements DataVersionWatch {
  private readonly connection: Database.Database;
  private readonly read: Database.Statement<[], bigint | undefined>;

  constructor(databaseUrl: string) {
    this.connection = new Database(sqlitePath(databaseUrl), { readonly: true, fileMustExist: true, timeout: 5000 });
    this.read = this.connection
      .prepare<[], bigint | undefined>('SELECT "version" FROM "DataVersion" WHERE "id" = 1')
      .pluck()
      .safeIntegers();
  }

  current(): Promise<bigint> {
    const version = this.read.get();
    if (version === undefined)
      return Promise.reject(new Error('DataVersion row 1 is missing: the database was not migrated by this service'));
    return Promise.resolve(version);
  }

  writeCommitted(): void {
    // The next read sees the write anyway.
  }

  async close(): Promise<void> {
    this.connection.close();
  }
}

export interface PostgresWatchSettings {
  /** Where to LISTEN: a direct connection (a pooler in transaction mode cannot hold one). */
  listenUrl: string;
  /** The schema whose changes count: the notifications of other schemas in the database are ignored. */
  schema: string;
  /** While not listening, the version is read this often, and a new LISTEN connection is tried as often. */
  pollMs: number;
}

/** The LISTEN connection's name in pg_stat_activity: this process's, for this schema. */
export function listenerName(schema: string): string {
  return `data-version ${process.pid} ${schema}`.slice(0, 63);
}

/** Splits a notification's `<schema> <version>` (the schema name may hold spaces, the version not). */
function parsePayload(payload: string | undefined): { schema: string; version: bigint } | undefined {
  const space = payload?.lastIndexOf(' ') ?? -1;
  if (!payload || space < 0) return undefined;
  const digits = payload.slice(space + 1);
  return /^\d+$/.test(digits) ? { schema: payload.slice(0, space), version: BigInt(digits) } : undefined;
}

/**
 * PostgreSQL: a connection of its own LISTENs on the channel the data-version trigger notifies at every commit
 * that writes, with the version in the payload; while it listens the version is known without a statement. When the
 * connection is lost (or cannot be made) the version is read every `pollMs` while a new one is tried as often, and
 * read once more when listening again, for what was missed meanwhile. A write of this process makes the next question
 * read the version, so the process sees its own writes at once, whatever the notification's delay.
 *
 * The version only grows, so whatever is learnt (a notification, a read) keeps the largest seen; notifications
 * arrive in commit order anyway.
 */
export class PostgresDataVersionWatch implements DataVersionWatch {
  private version: bigint | undefined;
  /** Writes of this process counted so far; a read answers for those made before it started. */
  private ownWrites = 0;
  private ownWritesSeen = 0;
  private reading: { ownWrites: number; version: Promise<bigint> } | undefined;
  private listener: pg.Client | undefined;
  private poller: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly readVersion: () => Promise<bigint>,
    private readonly settings: PostgresWatchSettings,
    private readonly logger: Logger,
  ) {}

  /** Listens (or polls, when it cannot) and reads the version once. */
  async start(): Promise<void> {
    await this.listen();
    await this.refresh();
  }

  current(): Promise<bigint> {
    if (this.version !== undefined && this.ownWritesSeen === this.ownWrites) return Promise.resolve(this.version);
    return this.refresh();
  }

  writeCommitted(): void {
    this.ownWrites++;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poller);
    clearTimeout(this.reconnect);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  /** Reads the version; callers asking while a read that started after their own writes runs share it. */
  private refresh(): Promise<bigint> {
    if (this.reading && this.reading.ownWrites === this.ownWrites) return this.reading.version;
    const ownWrites = this.ownWrites;
    const version = this.readVersion().then((read) => {
      this.learn(read);
      if (ownWrites > this.ownWritesSeen) this.ownWritesSeen = ownWrites;
      return this.version!;
    });
    const reading = { ownWrites, version };
    this.reading = reading;
    const done = () => void (this.reading === reading && (this.reading = undefined));
    version.then(done, done);
    return version;
  }

  private learn(version: bigint) {
    if (this.version === undefined || version > this.version) this.version = version;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.settings.listenUrl,
      keepAlive: true,
      application_name: listenerName(this.settings.schema),
    });
    client.on('notification', ({ channel, payload }) => {
      const notice = parsePayload(payload);
      if (channel === DATA_VERSION_CHANNEL && notice?.schema === this.settings.schema) this.learn(notice.version);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${DATA_VERSION_CHANNEL}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.lost(client, error);
      return;
    }
    if (this.closed) return void (await client.end().catch(() => undefined));
    const recovering = this.poller !== undefined;
    this.listener = client;
    // Changes made while nobody listened: read once, then stop polling.
    if (recovering) {
      await this.readVersion().then(
        (read) => this.learn(read),
        () => undefined,
      );
      if (this.listener !== client) return; // lost again meanwhile: still polling
      clearInterval(this.poller);
      this.poller = undefined;
      this.logger.info('data version: listening for changes again');
    }
  }

  /** The LISTEN connection failed or ended: poll until a new one listens. */
  private lost(client: pg.Client, error?: unknown) {
    if (this.closed || (this.listener !== undefined && this.listener !== client)) return;
    if (this.listener === client) this.listener = undefined;
    client.removeAllListeners('error');
    client.on('error', () => undefined);
    if (this.poller === undefined) {
      this.logger.warn(
        { err: error instanceof Error ? error.message : undefined, pollMs: this.settings.pollMs },
        'data version: not listening for changes; reading the version every pollMs meanwhile',
      );
      this.poll();
      this.poller = setInterval(() => this.poll(), this.settings.pollMs).unref();
    }
    clearTimeout(this.reconnect);
    this.reconnect = setTimeout(() => void this.listen(), this.settings.pollMs).unref();
  }

  private poll() {
    this.refresh().catch(() => undefined);
  }
}

/** The watch for the configured engine; `readVersion` reads the version through the application's own client. */
export async function watchDataVersion(
  config: Config,
  readVersion: () => Promise<bigint>,
  logger: Logger,
): Promise<DataVersionWatch> {
  if (config.engine === 'sqlite') return new SqliteDataVersionWatch(config.databaseUrl);
  const watch = new PostgresDataVersionWatch(
    readVersion,
    {
      listenUrl: postgresConnectionString(config.dataVersion.listenUrl ?? config.databaseUrl),
      schema: postgresSchema(config.databaseUrl),
      pollMs: config.dataVersion.pollMs,
    },
    logger,
  );
  await watch.start();
  return watch;
}
