/**
 * The data sets the benchmark runs on besides the generated ones (bench/generate.ts): the demo calendar of
 * `npm run seed`, and in every database a reader (a subscriber) with an application password and a bearer token for
 * the authenticated scenarios. Both through the compiled CLI, as an operator would (`buildServer()` first).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { GeneratedData } from './generate.js';
import { COMPILED_CLI, PROJECT_ROOT } from './processes.js';
import type { Credentials } from './scenarios.js';

const READER = 'bench-reader';

function cli(databaseUrl: string, ...args: string[]): string {
  const env = { ...process.env, DATABASE_URL: databaseUrl, CALENDAR_ADMIN_PASSWORD: '', LOG_LEVEL: 'warn' };
  return execFileSync(process.execPath, [COMPILED_CLI, ...args], {
    cwd: PROJECT_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
    .toString()
    .trim();
}

/** Writes the `npm run seed` demo calendar into a fresh SQLite file at `path` and describes it for the scenarios. */
export function seedDatabase(path: string): GeneratedData {
  const started = performance.now();
  const file = resolve(path);
  for (const suffix of ['', '-wal', '-shm', '-journal']) if (existsSync(file + suffix)) rmSync(file + suffix);
  cli(`file:${file}`, 'seed');
  const seconds = (performance.now() - started) / 1000;
  const db = new Database(file, { readonly: true });
  try {
    const count = (table: string, where = '1') =>
      db.prepare(`SELECT count(*) FROM "${table}" WHERE ${where}`).pluck().get() as number;
    const samples = db
      .prepare(
        `SELECT id, slug FROM Event WHERE status = 'publish' AND hideFromListings = 0 AND password = '' ORDER BY id LIMIT 200`,
      )
      .all() as Array<{ id: number; slug: string }>;
    // The filtered scenario: the category on most events, and a word of the title of its first upcoming listed event.
    const category = db
      .prepare(`SELECT slug FROM Term WHERE taxonomy = 'category' ORDER BY eventCount DESC, id LIMIT 1`)
      .pluck()
      .get() as string;
    const title = db
      .prepare(
        `SELECT e.title FROM Event e JOIN EventTerm l ON l.eventId = e.id JOIN Term t ON t.id = l.termId
         WHERE t.slug = ? AND e.status = 'publish' AND e.hideFromListings = 0 AND e.startsAt >= ? ORDER BY e.startsAt LIMIT 1`,
      )
      .pluck()
      .get(category, new Date(Date.now() + 86_400_000).toISOString()) as string | undefined;
    const word = (title ?? '').split(/[^\p{L}\p{N}]+/u).find((part) => part.length >= 4) ?? 'the';
    return {
      path: file,
      events: count('Event'),
      venues: count('Venue'),
      organizers: count('Organizer'),
      categories: count('Term', `taxonomy = 'category'`),
      tags: count('Term', `taxonomy = 'tag'`),
      media: count('Media'),
      sampleEventIds: samples.map((sample) => sample.id),
      sampleEventSlugs: samples.map((sample) => sample.slug),
      filterCategory: category,
      filterSearch: word.toLowerCase(),
      seconds,
    };
  } finally {
    db.close();
  }
}

/** The editor whose writes the realistic scenario with writes makes. */
const EDITOR = 'bench-editor';

/** Creates the reader (a subscriber: it sees what an anonymous reader sees) and its credentials, and an editor. */
export function createReader(databaseUrl: string): Credentials {
  cli(databaseUrl, 'users', 'create', READER, '--role', 'subscriber');
  const password = cli(databaseUrl, 'passwords', 'create', READER, '--name', 'bench');
  const token = cli(databaseUrl, 'tokens', 'create', READER, '--name', 'bench');
  cli(databaseUrl, 'users', 'create', EDITOR, '--role', 'editor');
  const editorPassword = cli(databaseUrl, 'passwords', 'create', EDITOR, '--name', 'bench');
  return {
    basic: `Basic ${Buffer.from(`${READER}:${password}`).toString('base64')}`,
    bearer: `Bearer ${token}`,
    editor: `Basic ${Buffer.from(`${EDITOR}:${editorPassword}`).toString('base64')}`,
  };
}
