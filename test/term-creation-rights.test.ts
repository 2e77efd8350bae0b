// Naming a category or tag that does not exist yet in an event write creates it, so it needs what creating it on
// /categories or /tags needs: manage_terms (editors and up). Least privilege, for tags as for categories: WordPress
// lets post writers create tags by naming them and the original creates any missing term, but here contributors and
// authors assign existing terms only. A refused write changes nothing: no event, no term.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../src/db/generated/prisma/enums.js';
import { createPeople, type People } from './auth-fixtures.js';
import { unique } from './support/factories.js';
import { restClient, type RestClient } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
let rest: RestClient;
let people: People;

beforeAll(async () => {
  server = await startServer();
  rest = restClient(server);
  people = await createPeople(server, 'terms');
});
afterAll(() => server?.close());

const ROLES: Role[] = ['contributor', 'author', 'editor'];
const TAXONOMIES = [
  { param: 'categories', route: '/categories' },
  { param: 'tags', route: '/tags' },
] as const;
const may = (role: Role) => role === 'editor';
const as = (role: Role) => ({ authorization: people.actors[role].authorization! });
const dates = { start_date: '2031-08-01 10:00:00', end_date: '2031-08-01 11:00:00' };

async function termNamed(route: string, name: string): Promise<boolean> {
  const listed = await rest.get(route, { query: { search: name, hide_empty: false } });
  expect(listed.status, listed.text).toBe(200);
  return listed.body[route.slice(1)].some((term: { name: string }) => term.name === name);
}

async function eventTitled(title: string): Promise<boolean> {
  const listed = await rest.get('/events', {
    query: { search: title, status: 'draft,pending,publish', start_date: '2031-01-01' },
    headers: { authorization: people.actors.administrator.authorization! },
  });
  expect(listed.status, listed.text).toBe(200);
  return listed.body.events.length > 0;
}

describe.each(TAXONOMIES)('$param named in an event write', ({ param, route }) => {
  it.each(ROLES)(
    `%s: may create a new one only with manage_terms (editors), over REST; a refusal names ${param} and writes nothing`,
    async (role) => {
      const name = unique(`New ${param}`);
      const title = unique('Term rights');
      const response = await rest.post('/events', { json: { title, ...dates, [param]: [name] }, headers: as(role) });
      if (may(role)) {
        expect(response.status, response.text).toBe(201);
        expect(response.body[param].map((term: { name: string }) => term.name)).toEqual([name]);
        expect(await termNamed(route, name)).toBe(true);
      } else {
        expect(response.status, response.text).toBe(400);
        expect(response.body.code).toBe('rest_invalid_param');
        expect(Object.keys(response.body.data.params)).toEqual([param]);
        expect(await termNamed(route, name)).toBe(false);
        expect(await eventTitled(title)).toBe(false);
      }
    },
  );

  it.each(ROLES)(`%s: the same over GraphQL`, async (role) => {
    const field = param;
    const name = unique(`New ${param}`);
    const title = unique('Term rights');
    const result = await server.gql(
      `mutation ($input: EventInput!) { createEvent(input: $input) { slug ${field} { name } } }`,
      { input: { title, startDate: dates.start_date, endDate: dates.end_date, [field]: [name] } },
      people.actors[role].authorization,
    );
    if (may(role)) {
      expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      expect(result.data.createEvent[field]).toEqual([{ name }]);
    } else {
      expect(result.errors?.[0]?.extensions?.code, JSON.stringify(result)).toBe('BAD_USER_INPUT');
      expect(Object.keys(result.errors![0]!.extensions!.fields)).toEqual([field]);
      expect(result.errors![0]!.extensions!.fields[field]).toContain('manage_terms');
      expect(await termNamed(route, name)).toBe(false);
      expect(await eventTitled(title)).toBe(false);
    }
  });

  it.each(ROLES)('%s: may assign an existing one by name or ID (assign_terms comes with edit_posts)', async (role) => {
    const existing = await rest.post(route, { json: { name: unique(`Known ${param}`) } });
    expect(existing.status, existing.text).toBe(201);
    const byName = await rest.post('/events', {
      json: { title: unique('Assign'), ...dates, [param]: [existing.body.name.toUpperCase()] },
      headers: as(role),
    });
    expect(byName.status, byName.text).toBe(201);
    expect(byName.body[param].map((term: { id: number }) => term.id)).toEqual([existing.body.id]);
    const byId = await rest.post('/events', {
      json: { title: unique('Assign'), ...dates, [param]: [existing.body.id] },
      headers: as(role),
    });
    expect(byId.status, byId.text).toBe(201);
  });
});
