import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reusingStatements, type StatementSource } from '../src/db/sqlite-adapter.js';

// The adapter's way of running a query (@prisma/adapter-better-sqlite3 7.10, performIO/executeIO), on a real database.
function query(db: StatementSource, sql: string, args: unknown[]) {
  const statement = db.prepare(sql).bind(args);
  if (!statement.reader) return { changes: statement.run().changes };
  return { columns: statement.columns().map((column) => column.name), rows: statement.raw().all() };
}

let database: Database.Database;
let prepared: string[];
let counted: StatementSource;

beforeEach(() => {
  database = new Database(':memory:');
  database.defaultSafeIntegers(true);
  database.exec('CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');
  prepared = [];
  counted = {
    prepare: ((sql: string) => (prepared.push(sql), database.prepare(sql))) as Database.Database['prepare'],
    exec: (source) => database.exec(source),
    close: () => database.close(),
  };
});
afterEach(() => {
  if (database.open) database.close();
});

describe('the SQLite statement cache', () => {
  it('answers what a freshly prepared statement answers, with new arguments on each use', () => {
    const cached = reusingStatements(counted);
    for (const name of ['a', 'b', 'c'])
      expect(query(cached, 'INSERT INTO item (name) VALUES (?)', [name])).toEqual({ changes: 1 });
    const select = 'SELECT id, name FROM item WHERE id >= ? ORDER BY id';
    expect(query(cached, select, [2n])).toEqual({
      columns: ['id', 'name'],
      rows: [
        [2n, 'b'],
        [3n, 'c'],
      ],
    });
    expect(query(cached, select, [3n])).toEqual({ columns: ['id', 'name'], rows: [[3n, 'c']] });
    expect(query(cached, select, [1n])).toEqual(query(counted, select, [1n]));
  });

  it('prepares each SQL text once while it stays among the kept', () => {
    const cached = reusingStatements(counted);
    for (let i = 0; i < 20; i++) query(cached, 'INSERT INTO item (name) VALUES (?)', [`n${i}`]);
    for (let i = 0; i < 20; i++) query(cached, 'SELECT count(*) AS n FROM item WHERE id > ?', [i]);
    expect(prepared).toEqual(['INSERT INTO item (name) VALUES (?)', 'SELECT count(*) AS n FROM item WHERE id > ?']);
  });

  it('keeps a bounded number of statements, dropping the least recently used', () => {
    const cached = reusingStatements(counted, 3);
    const texts = [1, 2, 3, 4].map((n) => `SELECT ${n} AS n`);
    for (const sql of texts) query(cached, sql, []);
    expect(prepared).toHaveLength(4);
    query(cached, texts[3]!, []); // still kept
    expect(prepared).toHaveLength(4);
    query(cached, texts[0]!, []); // dropped when the fourth came in: prepared again
    expect(prepared).toHaveLength(5);
    expect(query(cached, texts[0]!, [])).toEqual({ columns: ['n'], rows: [[1n]] });
  });

  it('does not keep a statement SQLite refuses, and reports its error every time', () => {
    const cached = reusingStatements(counted);
    expect(() => query(cached, 'SELECT nope FROM item', [])).toThrow(/no such column/);
    expect(() => query(cached, 'SELECT nope FROM item', [])).toThrow(/no such column/);
    expect(prepared).toHaveLength(2);
  });

  it('runs a statement prepared without arguments, as the adapter begins a transaction (as a writer)', () => {
    const cached = reusingStatements(counted);
    for (const name of ['p', 'q']) {
      cached.prepare('BEGIN').run();
      query(cached, 'INSERT INTO item (name) VALUES (?)', [name]);
      cached.prepare('ROLLBACK').run();
    }
    expect(query(cached, 'SELECT count(*) FROM item', [])).toEqual({ columns: ['count(*)'], rows: [[0n]] });
    expect(prepared.filter((sql) => sql.startsWith('BEGIN'))).toEqual(['BEGIN IMMEDIATE']);
  });

  it('a statement run without rows (a write) and with rows share the cache without changing each other', () => {
    const cached = reusingStatements(counted);
    query(cached, 'INSERT INTO item (name) VALUES (?)', ['x']);
    const returning = 'INSERT INTO item (name) VALUES (?) RETURNING id, name';
    expect(query(cached, returning, ['y'])).toEqual({ columns: ['id', 'name'], rows: [[2n, 'y']] });
    expect(query(cached, returning, ['z'])).toEqual({ columns: ['id', 'name'], rows: [[3n, 'z']] });
  });
});

describe('the columns of a kept statement', () => {
  it('follow a column added by another connection when the statement reads `*`; named ones stay', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'statement-columns-')), 'db.sqlite');
    const ours = new Database(path);
    const theirs = new Database(path);
    try {
      ours.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL); INSERT INTO item (name) VALUES ('a')");
      const cached = reusingStatements(ours);
      const named = 'SELECT id, name FROM item';
      expect(query(cached, 'SELECT * FROM item', [])).toEqual({ columns: ['id', 'name'], rows: [[1, 'a']] });
      expect(query(cached, named, [])).toEqual({ columns: ['id', 'name'], rows: [[1, 'a']] });
      theirs.exec("ALTER TABLE item ADD COLUMN colour TEXT NOT NULL DEFAULT 'red'");
      // The first run after the change still names the old columns, as a freshly prepared statement does (SQLite reads
      // the new schema when the statement runs); the next one names them all.
      query(cached, 'SELECT * FROM item', []);
      expect(query(cached, 'SELECT * FROM item', [])).toEqual({
        columns: ['id', 'name', 'colour'],
        rows: [[1, 'a', 'red']],
      });
      expect(query(cached, named, [])).toEqual({ columns: ['id', 'name'], rows: [[1, 'a']] });
    } finally {
      ours.close();
      theirs.close();
    }
  });
});
