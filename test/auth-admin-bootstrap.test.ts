import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from './auth-fixtures.js';
import { freshDatabase, type TestDatabase } from './support/database.js';
import { basicAuthorization, type TestServer } from './support/server.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logging/logger.js';
import { seed } from '../src/seed.js';
import { createApp, listen, shutdown, type App } from '../src/server.js';

// CALENDAR_ADMIN_PASSWORD creates the first administrator, once: when the database has no administrator. Later starts
// with the variable still set change nothing (a revoked password stays revoked) and say so in one warning line,
// which never holds the password.

const PASSWORD = 'bootstrap admin pw 41f2';
const ADMIN = basicAuthorization('admin', PASSWORD);

let dir: string;
let database: TestDatabase;

interface Running {
  server: TestServer;
  lines: string[];
  stop(): Promise<void>;
}

/** Starts the real server on the test database with CALENDAR_ADMIN_PASSWORD set, keeping its log lines. */
async function start(on: TestDatabase = database): Promise<Running> {
  const lines: string[] = [];
  const config = loadConfig({
    DATABASE_URL: on.url,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    CALENDAR_ADMIN_PASSWORD: PASSWORD,
  });
  const app: App = await createApp(config, {
    logger: createLogger(config.logLevel, { write: (line: string) => void lines.push(line) }),
  });
  const http: Server = await listen(app, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { server: { url, app } as TestServer, lines, stop: () => shutdown(http, app) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-bootstrap-'));
  database = await freshDatabase(dir);
});
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const viewerLogin = async (server: TestServer, authorization: string) => {
  const result = await graphql(server, '{ viewer { login } }', {}, authorization);
  return result.status === 200 ? result.body.data.viewer.login : result.status;
};

describe('CALENDAR_ADMIN_PASSWORD', () => {
  it('creates admin on the first start only; a revoked password stays revoked after a restart with the same value', async () => {
    const first = await start();
    let rotated: string;
    try {
      expect(first.lines).toEqual([]);
      expect(await viewerLogin(first.server, ADMIN)).toBe('admin');
      // Rotation as docs/authentication.md describes it: a new password, then the old one revoked.
      const created = await graphql(
        first.server,
        'mutation { p: createApplicationPassword(name: "rotated") { secret } }',
        {},
        ADMIN,
      );
      rotated = basicAuthorization('admin', created.body.data.p.secret);
      const bootstrapped = await first.server.app.db.credential.findFirstOrThrow({
        where: { name: 'CALENDAR_ADMIN_PASSWORD' },
      });
      const revoked = await graphql(
        first.server,
        `mutation { r: revokeCredential(id: ${bootstrapped.id}) { revokedAt } }`,
        {},
        rotated,
      );
      expect(revoked.body.data.r.revokedAt).not.toBeNull();
      expect(await viewerLogin(first.server, ADMIN)).toBe(401);
    } finally {
      await first.stop();
    }

    const second = await start();
    try {
      expect(await viewerLogin(second.server, ADMIN)).toBe(401);
      expect(await viewerLogin(second.server, rotated)).toBe('admin');
      expect(await second.server.app.db.credential.count({ where: { name: 'CALENDAR_ADMIN_PASSWORD' } })).toBe(1);
      const warnings = second.lines
        .map((line) => JSON.parse(line))
        .filter((line) => /CALENDAR_ADMIN_PASSWORD/.test(line.msg));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        level: 'warn',
        msg: expect.stringMatching(/set but ignored.*already has an administrator with a password/),
      });
      for (const line of second.lines) expect(line).not.toContain(PASSWORD);
    } finally {
      await second.stop();
    }
  });

  it('still creates admin after `npm run seed`, whose demo author is an administrator nobody can sign in as', async () => {
    const seededDir = mkdtempSync(join(tmpdir(), 'calendar-bootstrap-seeded-'));
    const seeded = await freshDatabase(seededDir);
    try {
      await seed(loadConfig({ DATABASE_URL: seeded.url, LOG_LEVEL: 'warn' }), { events: 5 });
      const running = await start(seeded);
      try {
        expect(running.lines).toEqual([]);
        expect(await viewerLogin(running.server, ADMIN)).toBe('admin');
        const administrators = await running.server.app.db.user.findMany({
          where: { role: 'administrator' },
          select: { login: true },
          orderBy: { login: 'asc' },
        });
        expect(administrators.map((user) => user.login)).toEqual(['admin', 'demo']);
      } finally {
        await running.stop();
      }
    } finally {
      await seeded.drop();
      rmSync(seededDir, { recursive: true, force: true });
    }
  });
});
