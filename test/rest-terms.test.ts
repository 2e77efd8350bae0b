import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleBody, sampleHeaders } from './support/rest.js';
import { assertSchema } from './support/schemas.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// REST /categories and /tags as The Events Calendar answers them (docs/rest-compatibility.md), tested over HTTP against a real server.

let server: TestServer;
const API = '/wp-json/calendar/events/v1';
let base: string;

interface Reply {
  status: number;
  headers: Headers;
  body: any;
  /** The raw JSON text, to compare bodies byte for byte. */
  text: string;
}

/**
 * Calls a route. Writes (every method but GET) are made by the test administrator unless `authorization` says
 * otherwise ('' for an anonymous call).
 */
async function rest(
  method: string,
  path: string,
  body?: Record<string, unknown> | string,
  prefix = API,
  authorization?: string,
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const as = authorization ?? (['GET', 'HEAD', 'OPTIONS'].includes(method) ? '' : ADMIN_AUTHORIZATION);
  if (as) headers.authorization = as;
  if (typeof body === 'string') headers['content-type'] = 'application/x-www-form-urlencoded';
  else if (body) headers['content-type'] = 'application/json';
  const init: RequestInit = {
    method,
    headers,
    body: typeof body === 'string' ? body : body ? JSON.stringify(body) : undefined,
  };
  const response = await fetch(`${server.url}${prefix}${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null, text };
}

const get = (path: string) => rest('GET', path);

/** Key orders of the original's responses (samples 18–21). Single reads there also carry core's `_links`, which TEC
 * removes from term responses; this service leaves them out. */
const CATEGORY_KEYS = Object.keys(sampleBody('18-categories-list').categories[0]);
const TAG_KEYS = Object.keys(sampleBody('20-tags-list').tags[0]);
const ENVELOPE_KEYS = (key: string) => Object.keys(sampleBody(key === 'tags' ? '20-tags-list' : '18-categories-list'));
const INVALID_PARAM_KEYS = ['code', 'message', 'data'];

function expectTermShape(term: any, route: 'categories' | 'tags') {
  expect(Object.keys(term)).toEqual(route === 'categories' ? CATEGORY_KEYS : TAG_KEYS);
  assertSchema('term', term);
}

function expectInvalidParam(reply: Reply, ...params: string[]) {
  expect(reply.status).toBe(400);
  expect(Object.keys(reply.body)).toEqual(INVALID_PARAM_KEYS);
  expect(reply.body.code).toBe('rest_invalid_param');
  expect(reply.body.message).toBe(`Invalid parameter(s): ${params.join(', ')}`);
  expect(reply.body.data.status).toBe(400);
  expect(Object.keys(reply.body.data.params).sort()).toEqual([...params].sort());
}

const ids = (reply: Reply, key: string): number[] => reply.body[key].map((term: any) => term.id);
const names = (reply: Reply, key: string): string[] => reply.body[key].map((term: any) => term.name);

async function createTerm(route: 'categories' | 'tags', body: Record<string, unknown>) {
  const reply = await rest('POST', `/${route}`, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

async function createEvent(fields: Record<string, unknown>) {
  const reply = await rest('POST', '/events', {
    title: `Event ${Math.random().toString(36).slice(2, 8)}`,
    start_date: '2030-03-01 10:00:00',
    end_date: '2030-03-01 12:00:00',
    ...fields,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

// Fixture: Music (with child Jazz), Sports, Food (no event), Empty Child (child of Music, no event); tags free, outdoor,
// unused. Events: A (Music, Jazz; free), B (Music; free, outdoor), C (Sports), D (draft; Food, unused).
const t: Record<string, any> = {};
const ev: Record<string, any> = {};

beforeAll(async () => {
  server = await startServer({ SITE_URL: 'http://calendar.test' });
  base = `http://calendar.test${API}`;
  t.music = await createTerm('categories', { name: 'Music', description: 'All music events' });
  t.jazz = await createTerm('categories', { name: 'Jazz', parent: t.music.id });
  t.sports = await createTerm('categories', { name: 'Sports', slug: 'sport-events' });
  t.food = await createTerm('categories', { name: 'Food' });
  t.emptyChild = await createTerm('categories', { name: 'Empty Child', parent: t.music.id });
  t.free = await createTerm('tags', { name: 'free' });
  t.outdoor = await createTerm('tags', { name: 'outdoor', description: 'Outside' });
  t.unused = await createTerm('tags', { name: 'unused' });
  ev.a = await createEvent({ categories: 'Music,Jazz', tags: 'free' });
  ev.b = await createEvent({ categories: [t.music.id], tags: [t.free.id, t.outdoor.id] });
  ev.c = await createEvent({ categories: 'Sports' });
  ev.d = await createEvent({ status: 'draft', categories: 'Food', tags: 'unused' });
});
afterAll(() => server.close());

describe('GET /categories', () => {
  it('answers the envelope in TEC key order with the non-empty categories by name, and X-TEC headers', async () => {
    const reply = await get('/categories');
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(ENVELOPE_KEYS('categories'));
    expect(reply.body.rest_url).toBe(`${base}/categories/`);
    expect(reply.body.total).toBe(3);
    expect(reply.body.total_pages).toBe(1);
    expect(names(reply, 'categories')).toEqual(['Jazz', 'Music', 'Sports']);
    expect(reply.headers.get('x-tec-total')).toBe('3');
    expect(reply.headers.get('x-tec-totalpages')).toBe('1');
    expect(reply.headers.get('x-wp-total')).toBeNull();
    expect(reply.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(reply.headers.get('access-control-expose-headers')).toContain('X-TEC-TotalPages');
    expect(reply.headers.get('allow')).toBe('GET, POST');
    for (const term of reply.body.categories) expectTermShape(term, 'categories');
  });

  it('renders each category as the terms controller does, with counts of published events and up links', async () => {
    const reply = await get('/categories');
    const [jazz, music, sports] = reply.body.categories;
    expect(music).toEqual({
      id: t.music.id,
      count: 2,
      description: 'All music events',
      name: 'Music',
      slug: 'music',
      taxonomy: 'tribe_events_cat',
      parent: 0,
      meta: [],
      url: 'http://calendar.test/events/category/music/',
      urls: { self: `${base}/categories/${t.music.id}`, collection: `${base}/categories` },
    });
    expect(jazz).toMatchObject({ count: 1, parent: t.music.id, slug: 'jazz' });
    expect(Object.keys(jazz.urls)).toEqual(['self', 'collection', 'up']);
    expect(jazz.urls.up).toBe(`${base}/categories/${t.music.id}`);
    expect(sports).toMatchObject({ slug: 'sport-events', url: 'http://calendar.test/events/category/sport-events/' });
  });

  it('shows empty categories with hide_empty=false (every boolean spelling) and refuses a non-boolean', async () => {
    for (const value of ['false', '0', 'no']) {
      const reply = await get(`/categories?hide_empty=${value}`);
      expect(names(reply, 'categories')).toEqual(['Empty Child', 'Food', 'Jazz', 'Music', 'Sports']);
      expect(reply.body.total).toBe(5);
    }
    expect((await get('/categories?hide_empty=true')).body.total).toBe(3);
    expect((await get('/categories?hide_empty=1')).body.total).toBe(3);
    expectInvalidParam(await get('/categories?hide_empty=maybe'), 'hide_empty');
  });

  it('pages: next_rest_url carries only page; previous_rest_url from page 2 is the bare base', async () => {
    const first = await get('/categories?per_page=2&order=asc');
    expect(first.body.total).toBe(3);
    expect(first.body.total_pages).toBe(2);
    expect(Object.keys(first.body)).toEqual([...ENVELOPE_KEYS('categories'), 'next_rest_url']);
    expect(first.body.rest_url).toBe(`${base}/categories/`);
    expect(first.body.next_rest_url).toBe(`${base}/categories/?page=2`);
    expect(names(first, 'categories')).toEqual(['Jazz', 'Music']);
    expect(first.headers.get('x-tec-totalpages')).toBe('2');

    const second = await get('/categories?per_page=2&order=asc&page=2');
    expect(Object.keys(second.body)).toEqual([...ENVELOPE_KEYS('categories'), 'previous_rest_url']);
    expect(second.body.rest_url).toBe(`${base}/categories/`);
    expect(second.body.previous_rest_url).toBe(`${base}/categories/`);
    expect(names(second, 'categories')).toEqual(['Sports']);
  });

  it('answers 200 with an empty list past the last page, previous pointing one page back', async () => {
    const reply = await get('/categories?hide_empty=false&per_page=2&page=5');
    expect(reply.status).toBe(200);
    expect(reply.body.categories).toEqual([]);
    expect(reply.body.total).toBe(5);
    expect(reply.body.total_pages).toBe(3);
    expect(Object.keys(reply.body)).toEqual([...ENVELOPE_KEYS('categories'), 'previous_rest_url']);
    expect(reply.body.previous_rest_url).toBe(`${base}/categories/?page=4`);
    const middle = await get('/categories?hide_empty=false&per_page=2&page=2');
    expect(Object.keys(middle.body)).toEqual([...ENVELOPE_KEYS('categories'), 'next_rest_url', 'previous_rest_url']);
    expect(middle.body.next_rest_url).toBe(`${base}/categories/?page=3`);
    expect(middle.body.previous_rest_url).toBe(`${base}/categories/`);
    const third = await get('/categories?hide_empty=false&per_page=2&page=3');
    expect(third.body.previous_rest_url).toBe(`${base}/categories/?page=2`);
    expect(third.body.next_rest_url).toBeUndefined();
  });

  it('answers total 0 and total_pages 0 when nothing matches, without next or previous', async () => {
    const reply = await get('/categories?search=nothing-like-this');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ rest_url: `${base}/categories/`, total: 0, total_pages: 0, categories: [] });
    expect(reply.headers.get('x-tec-total')).toBe('0');
    expect(reply.headers.get('x-tec-totalpages')).toBe('0');
  });

  it('refuses a page or per_page that is not a positive integer, and clamps per_page to 50', async () => {
    for (const value of ['0', '-1', 'foo', '1.5', '']) {
      expectInvalidParam(await get(`/categories?page=${value}`), 'page');
      expectInvalidParam(await get(`/categories?per_page=${value}`), 'per_page');
    }
    const clamped = await get('/categories?per_page=500&hide_empty=false');
    expect(clamped.status).toBe(200);
    expect(clamped.body.total_pages).toBe(1);
    expect(clamped.body.categories).toHaveLength(5);
    const one = await get('/categories?per_page=1');
    expect(one.body.total_pages).toBe(3);
    expect(one.body.categories).toHaveLength(1);
  });

  it('searches name and slug case-insensitively; an empty search is refused', async () => {
    expect(names(await get('/categories?search=JAZ'), 'categories')).toEqual(['Jazz']);
    expect(names(await get('/categories?search=events'), 'categories')).toEqual(['Sports']); // slug sport-events
    expectInvalidParam(await get('/categories?search='), 'search');
    expectInvalidParam(await get('/categories?search=%20%20'), 'search');
  });

  it('filters by include and exclude (CSV or array); every ID must be a category', async () => {
    expect(ids(await get(`/categories?include=${t.music.id},${t.sports.id}`), 'categories')).toEqual([
      t.music.id,
      t.sports.id,
    ]);
    expect(ids(await get(`/categories?include[]=${t.music.id}&include[]=${t.jazz.id}`), 'categories')).toEqual([
      t.jazz.id,
      t.music.id,
    ]);
    expect(names(await get(`/categories?exclude=${t.music.id},${t.jazz.id}`), 'categories')).toEqual(['Sports']);
    expect(names(await get(`/categories?exclude[]=${t.sports.id}`), 'categories')).toEqual(['Jazz', 'Music']);
    expectInvalidParam(await get(`/categories?include=${t.music.id},999999`), 'include');
    expectInvalidParam(await get(`/categories?exclude=999999`), 'exclude');
    // A tag ID is not a category.
    expectInvalidParam(await get(`/categories?include=${t.free.id}`), 'include');
    expectInvalidParam(await get('/categories?include=abc'), 'include');
    expectInvalidParam(await get('/categories?exclude=-3'), 'exclude');
    const both = await get('/categories?include=999999&exclude=999998');
    expectInvalidParam(both, 'include', 'exclude');
  });

  it('orders by the core get_terms attributes, asc or desc; unknown or empty values are refused', async () => {
    const all = '&hide_empty=false';
    expect(names(await get(`/categories?order=desc${all}`), 'categories')).toEqual([
      'Sports',
      'Music',
      'Jazz',
      'Food',
      'Empty Child',
    ]);
    expect(names(await get(`/categories?order=DESC${all}`), 'categories')).toEqual([
      'Sports',
      'Music',
      'Jazz',
      'Food',
      'Empty Child',
    ]);
    const byId = [t.music, t.jazz, t.sports, t.food, t.emptyChild].map((term) => term.id);
    expect(ids(await get(`/categories?orderby=id${all}`), 'categories')).toEqual(byId);
    expect(ids(await get(`/categories?orderby=term_id&order=desc${all}`), 'categories')).toEqual([...byId].reverse());
    expect(names(await get(`/categories?orderby=slug${all}`), 'categories')).toEqual([
      'Empty Child',
      'Food',
      'Jazz',
      'Music',
      'Sports',
    ]);
    expect(names(await get('/categories?orderby=count&order=desc'), 'categories')[0]).toBe('Music');
    expect(names(await get('/categories?orderby=description&order=desc'), 'categories')[0]).toBe('Music');
    const byParent = names(await get(`/categories?orderby=parent${all}`), 'categories');
    expect(byParent.slice(3).sort()).toEqual(['Empty Child', 'Jazz']);
    expectInvalidParam(await get('/categories?order='), 'order');
    expectInvalidParam(await get('/categories?order=sideways'), 'order');
    expectInvalidParam(await get('/categories?orderby='), 'orderby');
    expectInvalidParam(await get('/categories?orderby=colour'), 'orderby');
  });

  it('filters by parent (an existing category), answering its children', async () => {
    expect(names(await get(`/categories?parent=${t.music.id}`), 'categories')).toEqual(['Jazz']);
    expect(names(await get(`/categories?parent=${t.music.id}&hide_empty=0`), 'categories')).toEqual([
      'Empty Child',
      'Jazz',
    ]);
    expect((await get(`/categories?parent=${t.sports.id}`)).body.total).toBe(0);
    expectInvalidParam(await get('/categories?parent=999999'), 'parent');
    expectInvalidParam(await get(`/categories?parent=${t.free.id}`), 'parent');
    expectInvalidParam(await get('/categories?parent=0'), 'parent');
    expectInvalidParam(await get('/categories?parent=x'), 'parent');
  });

  it('filters by post / event (an existing event); event wins over post', async () => {
    expect(names(await get(`/categories?post=${ev.a.id}`), 'categories')).toEqual(['Jazz', 'Music']);
    expect(names(await get(`/categories?event=${ev.c.id}`), 'categories')).toEqual(['Sports']);
    expect(names(await get(`/categories?post=${ev.a.id}&event=${ev.c.id}`), 'categories')).toEqual(['Sports']);
    // The draft event's category has no published event, so hide_empty must be off to see it.
    expect(names(await get(`/categories?event=${ev.d.id}`), 'categories')).toEqual([]);
    expect(names(await get(`/categories?event=${ev.d.id}&hide_empty=false`), 'categories')).toEqual(['Food']);
    expectInvalidParam(await get('/categories?post=999999'), 'post');
    expectInvalidParam(await get('/categories?event=999999'), 'event');
    expectInvalidParam(await get(`/categories?post=${ev.a.id}&event=999999`), 'event');
    expectInvalidParam(await get(`/categories?post=999999&event=${ev.a.id}`), 'post');
    expectInvalidParam(await get(`/tags?post=999999&event=${ev.a.id}`), 'post');
    expectInvalidParam(await get('/categories?event=abc'), 'event');
    expectInvalidParam(await get('/categories?post=0'), 'post');
  });

  it('filters by exact slug; an unknown slug is an empty list, an empty slug is refused', async () => {
    expect(names(await get('/categories?slug=sport-events'), 'categories')).toEqual(['Sports']);
    expect(names(await get('/categories?slug=sport'), 'categories')).toEqual([]);
    expect((await get('/categories?slug=nope')).status).toBe(200);
    expectInvalidParam(await get('/categories?slug='), 'slug');
  });

  it('names every invalid parameter at once', async () => {
    const reply = await get('/categories?page=0&per_page=x&order=&search=');
    expectInvalidParam(reply, 'page', 'per_page', 'search', 'order');
  });
});

describe('GET /tags', () => {
  it('answers the tags envelope, tag objects without parent, and X-TEC headers', async () => {
    const reply = await get('/tags');
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(ENVELOPE_KEYS('tags'));
    expect(reply.body.rest_url).toBe(`${base}/tags/`);
    expect(names(reply, 'tags')).toEqual(['free', 'outdoor']);
    expect(reply.headers.get('x-tec-total')).toBe('2');
    expect(reply.headers.get('x-tec-totalpages')).toBe('1');
    for (const term of reply.body.tags) expectTermShape(term, 'tags');
    expect(reply.body.tags[0]).toEqual({
      id: t.free.id,
      count: 2,
      description: '',
      name: 'free',
      slug: 'free',
      taxonomy: 'post_tag',
      meta: [],
      url: 'http://calendar.test/tag/free/',
      urls: { self: `${base}/tags/${t.free.id}`, collection: `${base}/tags` },
    });
  });

  it('supports the shared filters and paging', async () => {
    expect(names(await get('/tags?hide_empty=false'), 'tags')).toEqual(['free', 'outdoor', 'unused']);
    expect(names(await get(`/tags?event=${ev.b.id}`), 'tags')).toEqual(['free', 'outdoor']);
    expect(names(await get(`/tags?post=${ev.a.id}`), 'tags')).toEqual(['free']);
    expect(names(await get('/tags?search=OUT'), 'tags')).toEqual(['outdoor']);
    expect(names(await get('/tags?slug=free'), 'tags')).toEqual(['free']);
    expect(names(await get(`/tags?exclude=${t.free.id}`), 'tags')).toEqual(['outdoor']);
    expect(names(await get(`/tags?include=${t.outdoor.id}`), 'tags')).toEqual(['outdoor']);
    expect(names(await get('/tags?orderby=count&order=desc'), 'tags')).toEqual(['free', 'outdoor']);
    const page2 = await get('/tags?per_page=1&page=2');
    expect(Object.keys(page2.body)).toEqual([...ENVELOPE_KEYS('tags'), 'previous_rest_url']);
    expect(page2.body.previous_rest_url).toBe(`${base}/tags/`);
    expect(names(page2, 'tags')).toEqual(['outdoor']);
    const page1 = await get('/tags?per_page=1');
    expect(page1.body.next_rest_url).toBe(`${base}/tags/?page=2`);
  });

  it('refuses category IDs as tags, unknown events and empty strings', async () => {
    expectInvalidParam(await get(`/tags?include=${t.music.id}`), 'include');
    expectInvalidParam(await get(`/tags?exclude=${t.music.id}`), 'exclude');
    expectInvalidParam(await get('/tags?event=999999'), 'event');
    expectInvalidParam(await get('/tags?search='), 'search');
    expectInvalidParam(await get('/tags?orderby=nope'), 'orderby');
  });

  it('has no parent filter: the parameter is ignored as WordPress ignores unknown parameters', async () => {
    const reply = await get('/tags?parent=999999');
    expect(reply.status).toBe(200);
    expect(names(reply, 'tags')).toEqual(['free', 'outdoor']);
  });
});

describe('GET /categories/{id} and /tags/{id}', () => {
  it('answers one category in the terms controller shape', async () => {
    const reply = await get(`/categories/${t.jazz.id}`);
    expect(reply.status).toBe(200);
    expectTermShape(reply.body, 'categories');
    expect(reply.body).toMatchObject({ id: t.jazz.id, name: 'Jazz', parent: t.music.id, count: 1 });
    expect(reply.body.urls.up).toBe(`${base}/categories/${t.music.id}`);
    expect(reply.headers.get('x-tec-total')).toBeNull();
    expect(reply.headers.get('allow')).toBe('GET, POST, PUT, PATCH, DELETE');
  });

  it('answers one tag without parent', async () => {
    const reply = await get(`/tags/${t.outdoor.id}`);
    expect(reply.status).toBe(200);
    expectTermShape(reply.body, 'tags');
    expect(reply.body).toMatchObject({ id: t.outdoor.id, name: 'outdoor', description: 'Outside', count: 1 });
  });

  it('answers 400 rest_invalid_param naming id for an unknown ID or one of the other taxonomy (sample 32)', async () => {
    const sample = sampleBody('32-err-unknown-category-id');
    expect(sampleHeaders('32-err-unknown-category-id').status).toBe(400);
    for (const path of ['/categories/999999', `/categories/${t.free.id}`, '/tags/999999', `/tags/${t.music.id}`]) {
      const reply = await get(path);
      expect(reply.status).toBe(400);
      expect(reply.text).toBe(JSON.stringify(sample));
    }
  });

  it('renders a single term with the keys of samples 19 and 21, without the _links of core', async () => {
    const category = await get(`/categories/${t.music.id}`);
    expect([...Object.keys(category.body), '_links']).toEqual(Object.keys(sampleBody('19-category-single')));
    const tag = await get(`/tags/${t.free.id}`);
    expect([...Object.keys(tag.body), '_links']).toEqual(Object.keys(sampleBody('21-tag-single')));
  });

  it('answers rest_no_route for a non-numeric ID, a slug route or an unknown method', async () => {
    for (const path of ['/categories/foo', '/tags/foo', '/categories/by-slug/music', '/categories/0x1']) {
      const reply = await get(path);
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe('rest_no_route');
    }
    expect((await rest('DELETE', '/categories')).body.code).toBe('rest_no_route');
    expect((await rest('PUT', '/tags')).status).toBe(404);
  });

  it('refuses ID 0 as an invalid id', async () => {
    expectInvalidParam(await get('/categories/0'), 'id');
  });
});

describe('POST /categories and /tags', () => {
  it('creates a category: 201, the term object, a Location header; slug generated from the name', async () => {
    const reply = await rest('POST', '/categories', {
      name: 'Open Air',
      description: 'Outdoor fun',
      parent: t.music.id,
    });
    expect(reply.status).toBe(201);
    expectTermShape(reply.body, 'categories');
    expect(reply.body).toMatchObject({
      name: 'Open Air',
      slug: 'open-air',
      description: 'Outdoor fun',
      parent: t.music.id,
      count: 0,
    });
    expect(reply.headers.get('location')).toBe(`${base}/categories/${reply.body.id}`);
    expect((await get(`/categories/${reply.body.id}`)).text).toBe(reply.text);
  });

  it('creates a tag from a form-encoded body and keeps a given slug', async () => {
    const reply = await rest('POST', '/tags', 'name=Late%20Night&slug=late&description=After%2010pm');
    expect(reply.status).toBe(201);
    expectTermShape(reply.body, 'tags');
    expect(reply.body).toMatchObject({
      name: 'Late Night',
      slug: 'late',
      description: 'After 10pm',
      taxonomy: 'post_tag',
    });
  });

  it('refuses an anonymous create with 401 rest_forbidden, writing nothing', async () => {
    for (const route of ['/categories', '/tags'] as const) {
      const reply = await rest('POST', route, { name: 'Anonymous term' }, API, '');
      expect(reply.status).toBe(401);
      expect(reply.body).toMatchObject({ code: 'rest_forbidden', data: { status: 401 } });
      expect((await get(`${route}?search=Anonymous&hide_empty=0`)).body[route.slice(1)]).toEqual([]);
    }
  });

  it('adds -2 to a clashing slug', async () => {
    const first = await createTerm('tags', { name: 'Slug One', slug: 'same-slug' });
    const second = await createTerm('tags', { name: 'Slug Two', slug: 'same-slug' });
    expect([first.slug, second.slug]).toEqual(['same-slug', 'same-slug-2']);
  });

  it('requires name (rest_missing_callback_param with a list of names)', async () => {
    for (const route of ['/categories', '/tags']) {
      const reply = await rest('POST', route, { description: 'No name' });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        code: 'rest_missing_callback_param',
        message: 'Missing parameter(s): name',
        data: { status: 400, params: ['name'] },
      });
    }
  });

  it('refuses empty name, description or slug and a parent that is not a category', async () => {
    expectInvalidParam(await rest('POST', '/categories', { name: '' }), 'name');
    expectInvalidParam(await rest('POST', '/categories', { name: '   ' }), 'name');
    expectInvalidParam(await rest('POST', '/categories', { name: 'Valid', description: '' }), 'description');
    expectInvalidParam(await rest('POST', '/categories', { name: 'Valid', slug: '' }), 'slug');
    expectInvalidParam(await rest('POST', '/categories', { name: 'Valid', parent: 999999 }), 'parent');
    expectInvalidParam(await rest('POST', '/categories', { name: 'Valid', parent: t.free.id }), 'parent');
    expectInvalidParam(await rest('POST', '/categories', { name: 'Valid', parent: 'abc' }), 'parent');
    expectInvalidParam(await rest('POST', '/tags', { name: ['a', 'b'] }), 'name');
    expectInvalidParam(
      await rest('POST', '/categories', { name: 'Valid', slug: '', description: '' }),
      'description',
      'slug',
    );
    // None of those were created.
    expect((await get('/categories?search=Valid&hide_empty=false')).body.total).toBe(0);
  });

  it('ignores parent on tags (tags have no parent parameter)', async () => {
    const reply = await rest('POST', '/tags', { name: 'Parentless', parent: t.free.id });
    expect(reply.status).toBe(201);
    expect(reply.body.parent).toBeUndefined();
  });

  it('answers term_exists with data.term_id for a name already used under the same parent', async () => {
    const reply = await rest('POST', '/categories', { name: 'music' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      code: 'term_exists',
      message: 'A term with the name provided already exists with this parent.',
      data: { status: 400, term_id: t.music.id },
    });
    const tag = await rest('POST', '/tags', { name: 'FREE' });
    expect(tag.body.code).toBe('term_exists');
    expect(tag.body.data.term_id).toBe(t.free.id);
    // The same name under another parent is allowed.
    const child = await rest('POST', '/categories', { name: 'Sports', parent: t.music.id });
    expect(child.status).toBe(201);
    expect(child.body.slug).toBe('sports');
  });

  it('refuses malformed JSON', async () => {
    const response = await fetch(`${server.url}${API}/categories`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: ADMIN_AUTHORIZATION },
      body: '{"name":',
    });
    expect(response.status).toBe(400);
    expect((await response.json()).code).toBe('rest_invalid_json');
  });
});

describe('POST|PUT|PATCH /categories/{id} and /tags/{id}', () => {
  it('updates with each editable method: 200 and the term; fields not sent keep their value', async () => {
    const term = await createTerm('categories', { name: 'Editable', description: 'Before' });
    const post = await rest('POST', `/categories/${term.id}`, { name: 'Edited' });
    expect(post.status).toBe(200);
    expectTermShape(post.body, 'categories');
    expect(post.body).toMatchObject({
      id: term.id,
      name: 'Edited',
      description: 'Before',
      slug: 'editable',
      parent: 0,
    });
    const put = await rest('PUT', `/categories/${term.id}`, { description: 'After', slug: 'edited' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Edited', description: 'After', slug: 'edited' });
    const patch = await rest('PATCH', `/categories/${term.id}`, { parent: t.sports.id });
    expect(patch.status).toBe(200);
    expect(patch.body.parent).toBe(t.sports.id);
    expect(patch.body.urls.up).toBe(`${base}/categories/${t.sports.id}`);
    const nothing = await rest('POST', `/categories/${term.id}`, {});
    expect(nothing.status).toBe(200);
    expect(nothing.text).toBe(patch.text);
  });

  it('accepts the method override header and _method', async () => {
    const term = await createTerm('tags', { name: 'Overridden' });
    const viaHeader = await fetch(`${server.url}${API}/tags/${term.id}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-http-method-override': 'PATCH',
        authorization: ADMIN_AUTHORIZATION,
      },
      body: JSON.stringify({ description: 'by header' }),
    });
    expect(viaHeader.status).toBe(200);
    expect((await viaHeader.json()).description).toBe('by header');
    const viaParam = await rest('POST', `/tags/${term.id}?_method=DELETE`);
    expect(viaParam.status).toBe(200);
    expect((await get(`/tags/${term.id}`)).status).toBe(400);
  });

  it('updates a tag', async () => {
    const term = await createTerm('tags', { name: 'Renamable' });
    const reply = await rest('PATCH', `/tags/${term.id}`, { name: 'Renamed', slug: 'renamed' });
    expect(reply.status).toBe(200);
    expectTermShape(reply.body, 'tags');
    expect(reply.body).toMatchObject({ id: term.id, name: 'Renamed', slug: 'renamed' });
  });

  it('answers 400 naming id for an unknown term or one of the other taxonomy', async () => {
    expectInvalidParam(await rest('POST', '/categories/999999', { name: 'X' }), 'id');
    expectInvalidParam(await rest('PUT', `/categories/${t.free.id}`, { name: 'X' }), 'id');
    expectInvalidParam(await rest('PATCH', `/tags/${t.music.id}`, { name: 'X' }), 'id');
  });

  it('refuses invalid values, a parent that is itself or a descendant, and a clashing name', async () => {
    expectInvalidParam(await rest('PATCH', `/categories/${t.sports.id}`, { name: '' }), 'name');
    expectInvalidParam(await rest('PATCH', `/categories/${t.sports.id}`, { description: '' }), 'description');
    expectInvalidParam(await rest('PATCH', `/categories/${t.sports.id}`, { slug: '' }), 'slug');
    expectInvalidParam(await rest('PATCH', `/categories/${t.sports.id}`, { parent: 999999 }), 'parent');
    expectInvalidParam(await rest('PATCH', `/categories/${t.music.id}`, { parent: t.music.id }), 'parent');
    expectInvalidParam(await rest('PATCH', `/categories/${t.music.id}`, { parent: t.jazz.id }), 'parent');
    const clash = await rest('PATCH', `/categories/${t.sports.id}`, { name: 'Food' });
    expect(clash.status).toBe(400);
    expect(clash.body.code).toBe('term_exists');
    expect(clash.body.data.term_id).toBe(t.food.id);
    // Nothing changed.
    expect((await get(`/categories/${t.sports.id}`)).body).toMatchObject({ name: 'Sports', parent: 0 });
  });
});

describe('DELETE /categories/{id} and /tags/{id}', () => {
  it('deletes for good and answers the deleted term; a second delete is an invalid id', async () => {
    const term = await createTerm('categories', { name: 'Doomed', description: 'Soon gone' });
    const reply = await rest('DELETE', `/categories/${term.id}`);
    expect(reply.status).toBe(200);
    expectTermShape(reply.body, 'categories');
    expect(reply.body).toEqual(term);
    expectInvalidParam(await get(`/categories/${term.id}`), 'id');
    expectInvalidParam(await rest('DELETE', `/categories/${term.id}`), 'id');
  });

  it('deletes a tag used by an event: the event no longer carries it', async () => {
    const tag = await createTerm('tags', { name: 'ephemeral' });
    const event = await createEvent({ tags: [tag.id] });
    expect(names(await get(`/tags?event=${event.id}`), 'tags')).toEqual(['ephemeral']);
    const reply = await rest('DELETE', `/tags/${tag.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: tag.id, name: 'ephemeral', count: 1, taxonomy: 'post_tag' });
    expect((await get(`/tags?event=${event.id}`)).body.tags).toEqual([]);
  });

  it('answers 400 naming id for an unknown ID or one of the other taxonomy', async () => {
    expectInvalidParam(await rest('DELETE', '/categories/999999'), 'id');
    expectInvalidParam(await rest('DELETE', `/categories/${t.free.id}`), 'id');
    expectInvalidParam(await rest('DELETE', `/tags/${t.music.id}`), 'id');
    // Still there.
    expect((await get(`/categories/${t.music.id}`)).status).toBe(200);
  });
});

describe('the same routes under every address of the namespace', () => {
  const paths = [
    '/categories',
    '/categories?hide_empty=false&per_page=2&page=2',
    '/tags?orderby=id&order=desc',
    '/categories/{music}',
    '/tags/{free}',
    '/categories/999999',
    '/categories?include=999999',
  ];

  it('answers identical bodies and statuses via the alias namespace, a language segment and ?rest_route=', async () => {
    for (const template of paths) {
      const path = template.replace('{music}', String(t.music.id)).replace('{free}', String(t.free.id));
      const canonical = await rest('GET', path);
      const [route, query] = path.split('?');
      const variants = [
        await rest('GET', path, undefined, '/wp-json/tribe/events/v1'),
        await rest('GET', path, undefined, '/fr/wp-json/calendar/events/v1'),
        await rest('GET', `/?rest_route=/calendar/events/v1${route}${query ? `&${query}` : ''}`, undefined, ''),
        await rest('GET', `/?rest_route=/tribe/events/v1${route}${query ? `&${query}` : ''}`, undefined, ''),
      ];
      for (const variant of variants) {
        expect(variant.status, path).toBe(canonical.status);
        expect(variant.text, path).toBe(canonical.text);
        expect(variant.headers.get('x-tec-total')).toBe(canonical.headers.get('x-tec-total'));
      }
    }
  });

  it('creates, updates and deletes through the alias namespace and ?rest_route=', async () => {
    const created = await rest('POST', '/tags', { name: 'Alias made' }, '/wp-json/tribe/events/v1');
    expect(created.status).toBe(201);
    expect(created.body.urls.self).toBe(`${base}/tags/${created.body.id}`);
    const updated = await rest(
      'PUT',
      `/?rest_route=/calendar/events/v1/tags/${created.body.id}`,
      { description: 'plain' },
      '',
    );
    expect(updated.status).toBe(200);
    expect(updated.body.description).toBe('plain');
    const deleted = await rest('DELETE', `/tags/${created.body.id}`, undefined, '/de/wp-json/tribe/events/v1');
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe(updated.text);
  });

  it('honours _fields on lists and single terms', async () => {
    const list = await get('/categories?_fields=total,categories');
    expect(list.body).toEqual({ total: 3, categories: expect.any(Array) });
    const single = await get(`/tags/${t.free.id}?_fields=id,name,urls.self`);
    expect(single.body).toEqual({ id: t.free.id, name: 'free', urls: { self: `${base}/tags/${t.free.id}` } });
  });
});
