import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { mayConnectTo } from '../src/net/outbound-addresses.js';
import { onlyError, unique } from './support/factories.js';
import { startImageServer, type ImageServer } from './support/image-server.js';
import { MIME_TYPES, type ImageKind } from './support/images.js';
import { freePort } from './support/processes.js';
import { call, dayAt } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

// Point 3 of issue 14: an image given by URL is fetched and must be an image by its bytes; what cannot be fetched
// (unreachable, too slow, too large, a private address) or is no image answers 400 rest_invalid_param naming `image`,
// as The Events Calendar's `is_image` validator does, and nothing is written. Every URL is on a local image server.

const TIMEOUT_MS = 1500;
const MAX_BYTES = 50_000;

let images: ImageServer;
let server: TestServer;
/** Refuses private addresses: the image server itself is one. */
let strict: TestServer;

beforeAll(async () => {
  images = await startImageServer();
  server = await startServer({ IMAGE_FETCH_TIMEOUT_MS: String(TIMEOUT_MS), IMAGE_FETCH_MAX_BYTES: String(MAX_BYTES) });
  strict = await startServer({ IMAGE_FETCH_ALLOW_PRIVATE: 'false' });
}, 60_000);

afterAll(async () => {
  await strict?.close();
  await server?.close();
  await images?.close();
});

const newEvent = (extra: Record<string, unknown>) => ({
  title: unique('Image test'),
  start_date: dayAt(3),
  end_date: dayAt(3, '12:00:00'),
  ...extra,
});
const MEDIA = 'image { id: databaseId url extension mimeType width height filesize }';

async function eventTotal(on: TestServer): Promise<number> {
  const data = await on.gqlOk(`{ events(first: 1, filter: { startsAfter: "1970-01-01" }) { totalCount } }`);
  return data.events.totalCount;
}

/** A REST event create that must be refused naming `image`, with nothing written; answers the reason given. */
async function refusedOver(on: TestServer, image: unknown): Promise<string> {
  const before = await eventTotal(on);
  const response = await call(on, 'POST', '/events', { json: newEvent({ image }) });
  expect(response.status, response.text).toBe(400);
  expect(response.body).toMatchObject({
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): image',
    data: { status: 400, params: { image: 'Invalid parameter.' } },
  });
  expect(await eventTotal(on)).toBe(before);
  return response.body.data.details.image.message as string;
}

describe('an image URL that answers an image', () => {
  it.each<[ImageKind, number, number]>([
    ['png', 3, 2],
    ['jpg', 17, 9],
    ['gif', 5, 11],
    ['webp', 40, 30],
  ])('keeps a %s with its type and size, answered in REST and GraphQL', async (kind, width, height) => {
    const url = images.image(kind, width, height);
    const created = await call(server, 'POST', '/events', { json: newEvent({ image: url }) });
    expect(created.status, created.text).toBe(201);
    const { image } = created.body;
    expect(Object.keys(image)).toEqual(['url', 'id', 'extension', 'width', 'height', 'filesize']);
    expect(image).toMatchObject({ url, extension: kind, width, height, filesize: expect.any(Number) });
    expect(image.filesize).toBeGreaterThan(20);
    expect((await call(server, 'GET', `/events/${created.body.id}`)).body.image).toEqual(image);
    const read = await server.gqlOk(`query ($id: ID!) { event(id: $id) { ${MEDIA} } }`, { id: created.body.id });
    expect(read.event.image).toEqual({
      id: image.id,
      url,
      extension: kind,
      mimeType: MIME_TYPES[kind],
      width,
      height,
      filesize: image.filesize,
    });
  });

  it('names the extension after the type when the URL has none, and keeps the URL given', async () => {
    const url = `${images.origin}/picture?type=gif&w=4&h=6&n=${unique()}`;
    const { createVenue } = await server.gqlOk(
      `mutation ($input: VenueInput!) { createVenue(input: $input) { ${MEDIA} } }`,
      { input: { name: unique('V'), image: url } },
    );
    expect(createVenue.image).toMatchObject({ url, extension: 'gif', mimeType: 'image/gif', width: 4, height: 6 });
  });

  it('follows redirects on allowed hosts and keeps the URL given', async () => {
    const target = images.image('png', 7, 8);
    const url = `${images.origin}/redirects?count=3&to=${encodeURIComponent(target)}&n=${unique()}`;
    const response = await call(server, 'POST', '/organizers', { json: { organizer: unique('O'), image: url } });
    expect(response.status, response.text).toBe(201);
    expect(response.body.image).toMatchObject({ url, extension: 'png', width: 7, height: 8 });
  });

  it('fetches a URL once: the same URL again, and the media ID, reuse the record', async () => {
    const url = images.image('jpg', 9, 9);
    const before = images.hits('/image.jpg');
    const first = (await call(server, 'POST', '/venues', { json: { venue: unique('V'), image: url } })).body.image;
    const again = (await call(server, 'POST', '/events', { json: newEvent({ image: url }) })).body.image;
    const byId = (await call(server, 'POST', '/events', { json: newEvent({ image: first.id }) })).body.image;
    expect(again).toEqual(first);
    expect(byId).toEqual(first);
    expect(images.hits('/image.jpg') - before).toBe(1);
  });

  it('fetches the images of venues and organizers an event brings along, each URL once', async () => {
    const url = images.image('png', 2, 3);
    const before = images.hits('/image.png');
    const { createEvent } = await server.gqlOk(
      `mutation ($input: EventInput!) { createEvent(input: $input) { ${MEDIA} venues { ${MEDIA} } organizers { ${MEDIA} } } }`,
      {
        input: {
          title: unique('E'),
          startDate: dayAt(2),
          endDate: dayAt(2, '11:00:00'),
          image: url,
          venues: [{ new: { name: unique('V'), image: url } }],
          organizers: [{ new: { name: unique('O'), image: url } }],
        },
      },
    );
    expect(createEvent.image).toMatchObject({ url, width: 2, height: 3 });
    expect(createEvent.venues[0].image).toEqual(createEvent.image);
    expect(createEvent.organizers[0].image).toEqual(createEvent.image);
    expect(images.hits('/image.png') - before).toBe(1);
  });
});

describe('an image URL refused (400, nothing written)', () => {
  it('bytes that are no image, whatever the Content-Type says', async () => {
    expect(await refusedOver(server, `${images.origin}/text.png?n=${unique()}`)).toMatch(
      /^image: is not an image \(JPEG, PNG/,
    );
  });

  it('an SVG drawing (it can carry scripts; WordPress refuses it too)', async () => {
    expect(await refusedOver(server, `${images.origin}/drawing.svg?n=${unique()}`)).toMatch(/is not an image/);
  });

  it('an answer other than 200', async () => {
    expect(await refusedOver(server, `${images.origin}/status/404?n=${unique()}`)).toBe(
      'image: could not be fetched: the server answered 404',
    );
    expect(await refusedOver(server, `${images.origin}/status/500?n=${unique()}`)).toBe(
      'image: could not be fetched: the server answered 500',
    );
  });

  it('an unreachable server', async () => {
    const closed = await freePort();
    expect(await refusedOver(server, `http://127.0.0.1:${closed}/photo.jpg`)).toBe(
      'image: could not be fetched (ECONNREFUSED)',
    );
  });

  it('a server slower than IMAGE_FETCH_TIMEOUT_MS', async () => {
    const started = Date.now();
    expect(await refusedOver(server, `${images.origin}/slow.png?n=${unique()}`)).toBe(
      `image: could not be fetched within ${TIMEOUT_MS} ms`,
    );
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 5_000);
  });

  it('a body larger than IMAGE_FETCH_MAX_BYTES, streamed or declared', async () => {
    expect(await refusedOver(server, `${images.origin}/huge.png?bytes=${MAX_BYTES * 20}&n=${unique()}`)).toBe(
      `image: is larger than ${MAX_BYTES} bytes`,
    );
    expect(await refusedOver(server, `${images.origin}/declared-huge.png?bytes=${MAX_BYTES + 1}&n=${unique()}`)).toBe(
      `image: is larger than ${MAX_BYTES} bytes`,
    );
    // Just under the cap is fine.
    const response = await call(server, 'POST', '/events', { json: newEvent({ image: images.image('png', 60, 60) }) });
    expect(response.status, response.text).toBe(201);
  });

  it('more than 5 redirects, and a redirect to another scheme', async () => {
    const target = images.image('png', 1, 1);
    expect(
      await refusedOver(server, `${images.origin}/redirects?count=6&to=${encodeURIComponent(target)}&n=${unique()}`),
    ).toBe('image: could not be fetched: more than 5 redirects');
    expect(
      await refusedOver(
        server,
        `${images.origin}/redirect?to=${encodeURIComponent('file:///etc/passwd')}&n=${unique()}`,
      ),
    ).toBe('image: redirects to a URL that is not http or https');
  });

  it('file:, ftp: and data: URLs, never fetched', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/x.png', 'data:image/png;base64,iVBORw0KGgo=']) {
      expect(await refusedOver(server, url)).toBe('image: must be the ID of a known image or an http(s) URL');
    }
  });

  it('in GraphQL as BAD_USER_INPUT naming the field, nested ones by their path', async () => {
    const before = await eventTotal(server);
    const bad = `${images.origin}/text.png?n=${unique()}`;
    const result = await server.gql(`mutation ($input: EventInput!) { createEvent(input: $input) { id } }`, {
      input: {
        title: unique('E'),
        startDate: dayAt(2),
        endDate: dayAt(2, '11:00:00'),
        venues: [{ new: { name: unique('V'), image: images.image('png', 1, 1) } }],
        organizers: [{ new: { name: unique('O'), image: bad } }],
      },
    });
    expect(onlyError(result)).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { 'organizers.0.image': expect.stringMatching(/^is not an image/) },
    });
    expect(await eventTotal(server)).toBe(before);
  });

  it('nothing fetched for a write refused otherwise: a bad field, or a user who may not give images by URL', async () => {
    const url = `${images.origin}/picture?type=png&n=${unique()}`;
    const before = images.hits('/picture');
    const badDate = await call(server, 'POST', '/events', { json: newEvent({ image: url, start_date: 'not a date' }) });
    expect(badDate.status).toBe(400);
    const anonymous = await call(server, 'POST', '/events', {
      json: newEvent({ image: url }),
      headers: { authorization: '' },
    });
    expect(anonymous.status).toBe(401);
    expect(images.hits('/picture')).toBe(before);
  });
});

describe('private and local addresses (IMAGE_FETCH_ALLOW_PRIVATE)', () => {
  it.each([
    ['the image server itself (127.0.0.1)', () => images.image('png', 1, 1)],
    ['IPv6 loopback', () => `http://[::1]:${new URL(images.origin).port}/image.png`],
    ['a name resolving to loopback', () => `http://localhost:${new URL(images.origin).port}/image.png`],
    ['IPv4 written inside IPv6', () => `http://[::ffff:127.0.0.1]:${new URL(images.origin).port}/image.png`],
    [
      '127.0.0.1 as an IPv4-compatible IPv6 address',
      () => `http://[::7f00:1]:${new URL(images.origin).port}/image.png`,
    ],
    [
      '127.0.0.1 as an IPv4-translated IPv6 address',
      () => `http://[::ffff:0:127.0.0.1]:${new URL(images.origin).port}/image.png`,
    ],
    ['cloud metadata behind the NAT64 prefix', () => 'http://[64:ff9b::169.254.169.254]/latest/meta-data/'],
    ['a private network by 6to4', () => 'http://[2002:a00:1::1]/image.png'],
    ['loopback by Teredo', () => 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/image.png'],
    ['127.0.0.1 written as a number', () => `http://2130706433:${new URL(images.origin).port}/image.png`],
    ['0.0.0.0', () => `http://0.0.0.0:${new URL(images.origin).port}/image.png`],
    ['a private network', () => 'http://10.0.0.1/image.png'],
    ['cloud metadata (link-local)', () => 'http://169.254.169.254/latest/meta-data/'],
    ['IPv6 unique-local', () => 'http://[fd00::1]/image.png'],
    ['multicast', () => 'http://224.0.0.1/image.png'],
  ])('refuses %s when not allowed, without connecting', async (_name, url) => {
    const before = images.hits('/image.png');
    expect(await refusedOver(strict, url())).toBe(
      'image: may not be fetched: its host is a private or local network address',
    );
    expect(images.hits('/image.png')).toBe(before);
  });

  it('refuses a redirect from an allowed host to an address that is not allowed', async () => {
    const port = new URL(images.origin).port;
    for (const to of [
      `http://127.0.0.2:${port}/image.png`,
      `http://[::1]:${port}/image.png`,
      'http://192.168.1.1/image.png',
    ]) {
      const url = `${images.origin}/redirect?to=${encodeURIComponent(to)}&n=${unique()}`;
      expect(await refusedOver(server, url)).toBe(
        'image: may not be fetched: its host is a private or local network address',
      );
    }
  });
});

describe('OUTBOUND_ALLOW_PRIVATE: one setting for every outgoing request', () => {
  it('applies to image fetches and webhooks, each older setting winning for its own requests when set', () => {
    const of = (env: Record<string, string>) => {
      const config = loadConfig(env);
      return { images: config.imageFetch.allowPrivate, webhooks: config.webhooks.allowPrivate };
    };
    expect(of({})).toEqual({ images: 'none', webhooks: 'none' });
    expect(of({ OUTBOUND_ALLOW_PRIVATE: '10.1.0.0/16' })).toEqual({
      images: ['10.1.0.0/16'],
      webhooks: ['10.1.0.0/16'],
    });
    expect(of({ OUTBOUND_ALLOW_PRIVATE: 'true' })).toEqual({ images: 'all', webhooks: 'all' });
    expect(
      of({ OUTBOUND_ALLOW_PRIVATE: 'true', IMAGE_FETCH_ALLOW_PRIVATE: 'false', WEBHOOKS_ALLOW_PRIVATE: '0' }),
    ).toEqual({ images: 'none', webhooks: 'none' });
    expect(of({ OUTBOUND_ALLOW_PRIVATE: '10.1.0.0/16', WEBHOOKS_ALLOW_PRIVATE: '1' })).toEqual({
      images: ['10.1.0.0/16'],
      webhooks: 'all',
    });
    expect(() => loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'intranet.example' })).toThrow(
      /OUTBOUND_ALLOW_PRIVATE must be true, false or a comma-separated list/,
    );
  });
});

describe('IMAGE_FETCH_ALLOW_PRIVATE', () => {
  const read = (value: string) => loadConfig({ IMAGE_FETCH_ALLOW_PRIVATE: value }).imageFetch.allowPrivate;

  it('takes true, false or a list of addresses and CIDR ranges, and refuses anything else', () => {
    expect(read('true')).toBe('all');
    expect(read('false')).toBe('none');
    expect(loadConfig({}).imageFetch).toEqual({ timeoutMs: 10_000, maxBytes: 10_485_760, allowPrivate: 'none' });
    expect(read('10.1.0.0/16, fd00::/8,127.0.0.1')).toEqual(['10.1.0.0/16', 'fd00::/8', '127.0.0.1']);
    for (const bad of ['yes', '1', '10.1', '10.0.0.0/33', 'intranet.example', '10.0.0.1,']) {
      expect(() => read(bad), bad).toThrow(ConfigError);
    }
  });

  it('lets a listed range through, whether written as IPv4 or inside IPv6, and nothing else private', () => {
    const ranges = ['10.1.0.0/16', 'fd00:1::/32'];
    expect(mayConnectTo('10.1.2.3', ranges)).toBe(true);
    expect(mayConnectTo('::ffff:10.1.2.3', ranges)).toBe(true);
    expect(mayConnectTo('fd00:1::5', ranges)).toBe(true);
    for (const address of [
      '10.2.0.1',
      '127.0.0.1',
      '::1',
      'fd00:2::5',
      '169.254.169.254',
      '192.168.0.1',
      '100.64.0.1',
      '0.0.0.0',
      'not an address',
    ]) {
      expect(mayConnectTo(address, ranges), address).toBe(false);
    }
    expect(mayConnectTo('93.184.215.14', 'none')).toBe(true);
    expect(mayConnectTo('2606:2800:21f:cb07:6820:80da:af6b:8b2c', 'none')).toBe(true);
    expect(mayConnectTo('127.0.0.1', 'all')).toBe(true);
  });
});
