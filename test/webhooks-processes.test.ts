// Webhooks with the server as deployed (the compiled CLI in child processes): the `webhooks` commands, and a server
// SIGKILLed while a delivery is in flight, whose successor on the same database delivers it (at least once).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILED_CLI } from '../bench/processes.js';
import { freshDatabase, type TestDatabase } from './support/database.js';
import { rest, runCommand, startInstance, stop, type Instance } from './support/processes.js';
import { expectedSignature, startReceiver, type Receiver } from './support/webhook-receiver.js';

const ENV = {
  WEBHOOKS_ALLOW_PRIVATE: '1',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_RETRY_MAX_MS: '200',
  // Long enough that the hanging attempt is still in flight when the server is killed.
  WEBHOOK_TIMEOUT_MS: '4000',
  WEBHOOK_LEASE_MS: '1000',
  WEBHOOK_WAKE_MS: '20',
};
const SECRET = 'process-test-secret-123';
/** Each CLI run is a Node process that loads Prisma and migrates: seconds apiece on a busy machine. */
const SLOW = 120_000;

const dir = mkdtempSync(join(tmpdir(), 'calendar-webhooks-'));
let database: TestDatabase;
let receiver: Receiver;
const instances: Instance[] = [];

beforeAll(async () => {
  database = await freshDatabase(dir);
  receiver = await startReceiver();
});

afterAll(async () => {
  await Promise.all(instances.map((instance) => stop(instance)));
  await receiver?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (env: Record<string, string>, ...args: string[]) =>
  runCommand(process.execPath, [COMPILED_CLI, ...args], {
    DATABASE_URL: database.url,
    CALENDAR_ADMIN_PASSWORD: '',
    LOG_LEVEL: 'warn',
    ...env,
  });

const tomorrow = (hour: number) =>
  `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)} ${String(hour).padStart(2, '0')}:00:00`;

describe('webhooks commands', () => {
  it(
    'creates (showing a generated secret once, alone on stdout), lists, enables, shows deliveries of and deletes a webhook',
    async () => {
      const created = await cli(ENV, 'webhooks', 'create', `${receiver.url}?cli`, '--types', 'venue,tag');
      expect(created.code, created.stderr).toBe(0);
      const secret = created.stdout.trim();
      // Standard Webhooks' form, and nothing a shell or an option parser could take for an option.
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const id = /Created webhook (\d+)/.exec(created.stderr)![1]!;
      expect(created.stderr).toContain('venue, tag');

      const listed = await cli(ENV, 'webhooks', 'list');
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(
        new RegExp(`^${id}\\s+http://127\\.0\\.0\\.1:\\d+/hooks\\?cli\\s+venue,tag\\s+active\\s`, 'm'),
      );
      expect(listed.stdout).not.toContain(secret);
      const enabled = await cli(ENV, 'webhooks', 'enable', id);
      expect(enabled.code, enabled.stderr).toBe(0);
      expect(enabled.stdout).toContain(`Webhook ${id} is enabled`);

      expect((await cli(ENV, 'webhooks', 'deliveries', id)).stdout).toContain(`No deliveries for webhook ${id} yet.`);
      const deleted = await cli(ENV, 'webhooks', 'delete', id);
      expect(deleted.code).toBe(0);
      expect(deleted.stdout).toContain(`Deleted webhook ${id}`);
      expect((await cli(ENV, 'webhooks', 'delete', id)).stderr).toContain(`no webhook with ID ${id}`);
      expect((await cli(ENV, 'webhooks', 'enable', id)).stderr).toContain(`no webhook with ID ${id}`);
      expect((await cli(ENV, 'webhooks', 'list')).stdout).not.toContain('?cli');
    },
    SLOW,
  );

  it(
    'refuses a private URL without WEBHOOKS_ALLOW_PRIVATE, unknown types, and a wrong ID',
    async () => {
      const refused = await cli({}, 'webhooks', 'create', receiver.url);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('private or local network address');
      const types = await cli(ENV, 'webhooks', 'create', receiver.url, '--types', 'event,party');
      expect(types.code).toBe(1);
      expect(types.stderr).toContain('unknown types party');
      expect((await cli(ENV, 'webhooks', 'deliveries', 'abc')).stderr).toContain('<id> must be a webhook ID');
      expect((await cli(ENV, 'webhooks', 'list')).stdout).toContain('No webhooks yet');
    },
    SLOW,
  );
});

describe('a server killed during a delivery', () => {
  it(
    'loses none: the next server on the database sends the delivery that was in flight, and the later ones',
    async () => {
      const created = await cli(ENV, 'webhooks', 'create', receiver.url, '--types', 'event', '--secret', SECRET);
      expect(created.code, created.stderr).toBe(0);
      const id = /Created webhook (\d+)/.exec(created.stderr)![1]!;
      receiver.received.length = 0;
      receiver.answer = (_request, index) => (index === 0 ? 'hang' : 204);

      const first = await startInstance(database.url, ENV);
      const event = await rest(first, 'POST', '/events', {
        title: 'In flight at the kill',
        start_date: tomorrow(19),
        end_date: tomorrow(20),
        status: 'publish',
      });
      expect(event.status).toBe(201);
      await receiver.waitFor(() => receiver.received.length === 1);
      const inFlight = receiver.received[0]!.json;
      expect(inFlight).toMatchObject({ type: 'event', record_id: event.body.id, action: 'created' });
      first.child.kill('SIGKILL');
      await new Promise((resolve) => first.child.once('exit', resolve));

      const pending = await cli(ENV, 'webhooks', 'deliveries', id);
      expect(pending.stdout).toMatch(
        new RegExp(`${inFlight.id}\\s+event ${event.body.id}\\s+created\\s+pending\\s+1\\s`),
      );

      const second = await startInstance(database.url, ENV);
      instances.push(second);
      const later = await rest(second, 'POST', '/events', {
        title: 'After the kill',
        start_date: tomorrow(9),
        end_date: tomorrow(10),
        status: 'publish',
      });
      await receiver.waitFor(() => receiver.accepted().length === 2, 20_000);
      const accepted = receiver.accepted();
      expect(accepted.map((b) => b.id)).toContain(inFlight.id);
      expect(accepted.map((b) => b.record_id).sort()).toEqual([event.body.id, later.body.id].sort());
      for (const request of receiver.received)
        expect(request.headers['x-calendar-signature']).toBe(expectedSignature(request.body, SECRET));

      const shown = await cli(ENV, 'webhooks', 'deliveries', id);
      expect(shown.stdout).toMatch(
        new RegExp(`${inFlight.id}\\s+event ${event.body.id}\\s+created\\s+delivered\\s+2\\s`),
      );
      expect(shown.stdout).toMatch(
        /^DELIVERY\s+RECORD\s+ACTION\s+STATUS\s+ATTEMPTS\s+LAST ERROR\s+NEXT ATTEMPT\s+DELIVERED/,
      );
    },
    SLOW,
  );
});
