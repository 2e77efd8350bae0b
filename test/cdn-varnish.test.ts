import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/processes.js';
import { rawRequest, type RawResponse } from './support/raw-http.js';
import { call } from './support/rest.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// A real Varnish (Debian's varnishd; .ci/run installs it) in front of the service, configured by the repository's
// deploy/varnish/default.vcl with the backend's port rewritten: anonymous reads are kept there (s-maxage), a write
// purges what it changed (CDN_PURGE_URL, a BAN with the tags) and nothing else, and nothing credentialed is kept.

const VARNISHD = '/usr/sbin/varnishd';
const VCL = fileURLToPath(new URL('../deploy/varnish/default.vcl', import.meta.url));
const REST = '/wp-json/calendar/events/v1';
/** How soon a write made through the service is seen through Varnish (docs/caching.md states the bound). */
const PURGE_BOUND_MS = 3000;
/** CDN_PURGE_REPEAT_MS: each purge is sent again this long after (shortened from 2 s, for the test's waits). */
const REPEAT_MS = 300;
/** Long enough for the purges of a test's own fixtures (and their repeats) to be done before it primes Varnish. */
const settle = () => new Promise((resolve) => setTimeout(resolve, REPEAT_MS + PURGE_BOUND_MS / 3));

let service: TestServer;
let varnish: ChildProcess | undefined;
let varnishLog = '';
let varnishUrl: string;
let dir: string;

/** Starts varnishd on `port` with the repository's VCL pointed at the service, and waits until it answers. */
async function startVarnish(port: number, backendPort: number): Promise<void> {
  const vcl = readFileSync(VCL, 'utf8').replace(/\.port = "\d+";/, `.port = "${backendPort}";`);
  expect(vcl).toContain(`.port = "${backendPort}";`);
  writeFileSync(join(dir, 'default.vcl'), vcl);
  // -j none: no privilege separation, so that the VCL and the work folder in the test's temporary folder are
  // readable whoever runs the suite; -F: in the foreground, a child of the test, killed in afterAll.
  varnish = spawn(
    VARNISHD,
    ['-F', '-j', 'none', '-a', `127.0.0.1:${port}`, '-f', join(dir, 'default.vcl'), '-n', join(dir, 'varnish')].concat([
      '-s',
      'malloc,32m',
      '-p',
      'ban_lurker_sleep=0.01',
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  varnish.stdout!.on('data', (chunk) => (varnishLog += chunk));
  varnish.stderr!.on('data', (chunk) => (varnishLog += chunk));
  const started = Date.now();
  for (;;) {
    if (varnish.exitCode !== null) throw new Error(`varnishd exited: ${varnishLog}`);
    const answered = await rawRequest(`${varnishUrl}/`).catch(() => undefined);
    if (answered) return;
    if (Date.now() - started > 20_000) throw new Error(`varnishd did not answer within 20 s: ${varnishLog}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stopVarnish(): Promise<void> {
  const child = varnish;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(killed);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-varnish-'));
  const port = await freePort();
  varnishUrl = `http://127.0.0.1:${port}`;
  service = await startServer({
    CDN_PURGE_URL: `${varnishUrl}/`,
    CDN_PURGE_STYLE: 'ban',
    CDN_PURGE_REPEAT_MS: String(REPEAT_MS),
  });
  await startVarnish(port, Number(new URL(service.url).port));
}, 60_000);

afterAll(async () => {
  await service?.close();
  await stopVarnish();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const through = (path: string, headers: Record<string, string> = {}) =>
  rawRequest(`${varnishUrl}${path}`, { 'accept-encoding': 'identity', accept: 'application/json', ...headers });
const header = (response: RawResponse, name: string) => String(response.headers[name] ?? '');
const json = (response: RawResponse) => JSON.parse(response.body.toString('utf8'));
/** Varnish names one transaction in X-Varnish on a miss or a pass, and the request's and the object's on a hit. */
const isHit = (response: RawResponse) =>
  header(response, 'x-cache') === 'HIT' && header(response, 'x-varnish').split(' ').length === 2;

async function createVenue(name: string): Promise<number> {
  const created = await call(service, 'POST', '/venues', { json: { venue: name } });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe('a Varnish in front of the service', () => {
  it('is told by the service what it may keep and what purges it', async () => {
    const id = await createVenue('Headers Hall');
    const anonymous = await rawRequest(`${service.url}${REST}/venues/${id}`, { accept: 'application/json' });
    expect(header(anonymous, 'cache-control')).toBe('public, max-age=0, s-maxage=3600, stale-while-revalidate=30');
    expect(header(anonymous, 'surrogate-key')).toBe(`venue:${id}`);
    expect(header(anonymous, 'cache-tag')).toBe(`venue:${id}`);
    const list = await rawRequest(`${service.url}${REST}/venues`, { accept: 'application/json' });
    expect(header(list, 'surrogate-key').split(' ')).toContain('venue');
    expect(header(list, 'cache-tag').split(',')).toContain('venue');
    const signedIn = await rawRequest(`${service.url}${REST}/venues/${id}`, {
      accept: 'application/json',
      authorization: ADMIN_AUTHORIZATION,
    });
    expect(signedIn.status).toBe(200);
    expect(header(signedIn, 'cache-control')).toBe('private, no-cache');
    expect(signedIn.headers['surrogate-key']).toBeUndefined();
    expect(signedIn.headers['cache-tag']).toBeUndefined();
  });

  it('answers an anonymous read from its cache the second time', async () => {
    const id = await createVenue('Hit Hall');
    await settle();
    const first = await through(`${REST}/venues/${id}`);
    expect([first.status, header(first, 'x-cache')]).toEqual([200, 'MISS']);
    const second = await through(`${REST}/venues/${id}`);
    expect([second.status, isHit(second)]).toEqual([200, true]);
    expect(second.body.equals(first.body)).toBe(true);
    // The tags stay between the service and Varnish.
    expect(second.headers['surrogate-key']).toBeUndefined();
  });

  it(`shows a write within ${PURGE_BOUND_MS} ms, and keeps what the write did not change`, async () => {
    const changed = await createVenue('Before Hall');
    const unrelated = await createVenue('Unrelated Hall');
    await settle();
    for (const path of [`/venues/${changed}`, `/venues/${unrelated}`, '/venues']) {
      await through(`${REST}${path}`);
      expect(isHit(await through(`${REST}${path}`)), path).toBe(true);
    }
    const written = Date.now();
    const update = await call(service, 'POST', `/venues/${changed}`, { json: { venue: 'After Hall' } });
    expect(update.status).toBe(200);
    let seen: RawResponse;
    for (;;) {
      seen = await through(`${REST}/venues/${changed}`);
      if (json(seen).venue === 'After Hall') break;
      expect(Date.now() - written, 'the write is not seen through Varnish in time').toBeLessThan(PURGE_BOUND_MS);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(header(seen, 'x-cache')).toBe('MISS');
    // The list shows the venue too (tagged `venue`): purged by the same request.
    const list = await through(`${REST}/venues`);
    expect(json(list).venues.map((venue: { venue: string }) => venue.venue)).toContain('After Hall');
    // Another venue's page was not purged: still the answer cached before the write.
    const other = await through(`${REST}/venues/${unrelated}`);
    expect(isHit(other)).toBe(true);
    expect(json(other).venue).toBe('Unrelated Hall');
  });

  it('never answers a credentialed request from its cache, nor keeps its answer', async () => {
    const id = await createVenue('Private Hall');
    await settle();
    const path = `${REST}/venues/${id}`;
    // Credentialed first: nothing is stored for the anonymous reads that follow.
    const credentialed: Record<string, string>[] = [{ authorization: ADMIN_AUTHORIZATION }, { cookie: 'session=x' }];
    for (const credentials of credentialed) {
      for (let i = 0; i < 2; i++) {
        const answer = await through(path, credentials);
        expect(answer.status).toBe(200);
        expect(header(answer, 'x-cache')).toBe('MISS');
        expect(header(answer, 'x-varnish').split(' ')).toHaveLength(1);
        expect(header(answer, 'cache-control')).toBe('private, no-cache');
      }
    }
    expect(header(await through(path), 'x-cache')).toBe('MISS');
    expect(isHit(await through(path))).toBe(true);
    // Now cached for anonymous readers: a credentialed request still goes to the service.
    const signedIn = await through(path, { authorization: ADMIN_AUTHORIZATION });
    expect([header(signedIn, 'x-cache'), header(signedIn, 'cache-control')]).toEqual(['MISS', 'private, no-cache']);
  });

  it('refuses purges that are not lists of tags', async () => {
    const refused = await rawRequest(`${varnishUrl}/`, { 'surrogate-key': 'event|.*' }, 'BAN');
    expect(refused.status).toBe(400);
  });
});
