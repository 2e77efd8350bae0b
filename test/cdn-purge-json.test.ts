import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';
import { type Received, type Receiver, startReceiver } from './support/webhook-receiver.js';

// CDN_PURGE_STYLE=json against a purge endpoint of our own, the shape of Cloudflare's purge by tag: every write is
// followed by a POST of `{"tags": [...]}` with the tags it made stale and the configured header, sent once more after
// CDN_PURGE_REPEAT_MS; a purge the endpoint refuses is sent again until it succeeds, and no tag is lost meanwhile.
// (The BAN style is tested against a real Varnish: test/cdn-varnish.test.ts.)

const TOKEN = 'Bearer purge-token-0123';
const REPEAT_MS = 300;

let service: TestServer;
let purges: Receiver;

beforeAll(async () => {
  purges = await startReceiver();
  service = await startServer({
    CDN_PURGE_URL: `${purges.url}/purge_cache?zone=test`,
    CDN_PURGE_STYLE: 'json',
    CDN_PURGE_HEADER: `Authorization: ${TOKEN}`,
    CDN_PURGE_REPEAT_MS: String(REPEAT_MS),
    CDN_PURGE_RETRY_MAX_MS: '1000',
  });
});
afterAll(async () => {
  await service?.close();
  await purges?.close();
});

const tagsOf = (request: Received): string[] => request.json?.tags ?? [];
const purged = (tag: string) => (request: Received) => tagsOf(request).includes(tag);

async function createEvent(title: string): Promise<number> {
  const created = await call(service, 'POST', '/events', {
    json: { title, start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00' },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe('purging a shared cache with CDN_PURGE_STYLE=json', () => {
  it('POSTs the tags a write made stale as {"tags": [...]}, with the configured header, twice', async () => {
    const id = await createEvent('Purged as JSON');
    const tag = `event:${id}`;
    await purges.waitFor(() => purges.received.filter(purged(tag)).length >= 2, 10_000);

    const [first, repeat] = purges.received.filter(purged(tag));
    for (const request of [first!, repeat!]) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/hooks/purge_cache?zone=test');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers.authorization).toBe(TOKEN);
      expect(Object.keys(request.json)).toEqual(['tags']);
      expect(tagsOf(request)).toContain('event');
      for (const each of tagsOf(request)) expect(each).toMatch(/^[a-z]+(:\d+)?$/);
      // No BAN-style header leaks into a JSON purge.
      expect(request.headers['surrogate-key']).toBeUndefined();
    }
    expect(repeat!.at - first!.at).toBeGreaterThanOrEqual(REPEAT_MS - 50);
  });

  it('sends a refused purge again until the endpoint takes it, keeping the writes made meanwhile', async () => {
    await new Promise((resolve) => setTimeout(resolve, REPEAT_MS * 2)); // the first test's repeat is done
    const before = purges.received.length;
    purges.answer = (_request, index) => (index < before + 2 ? 503 : 204);

    const first = await createEvent('Written while the endpoint fails');
    await purges.waitFor(() => purges.received.length > before, 5000);
    const second = await createEvent('Written while the purge is retried');
    await purges.waitFor(() => purges.received.some((r) => r.answered === 204 && purged(`event:${second}`)(r)), 10_000);

    const sent = purges.received.slice(before);
    expect(sent.slice(0, 2).map((r) => r.answered)).toEqual([503, 503]);
    // Every tag refused is in a purge that succeeded: the position moved only past purged changes.
    const accepted = new Set(sent.filter((r) => r.answered === 204).flatMap(tagsOf));
    for (const refused of sent.filter((r) => r.answered === 503).flatMap(tagsOf)) expect(accepted).toContain(refused);
    expect(accepted).toContain(`event:${first}`);
    // Retried after about a second (±25%), not at once.
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(700);
  });
});
