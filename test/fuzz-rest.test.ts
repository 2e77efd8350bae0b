import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ParamDeclaration } from '../src/rest/params.js';
import type { HttpMethod } from '../src/rest/route.js';
import { ROUTES } from '../src/rest/routes/table.js';
import { createCategory, createEvent, createOrganizer, createTag, createVenue } from './support/factories.js';
import {
  FUZZ_TEST_TIMEOUT_MS,
  anyValue,
  databaseSnapshot,
  fuzzRuns,
  reportRequestsSent,
  longIdList,
  nastyString,
  phpText,
  snapshot,
  unknownName,
  valueFor,
  type Wire,
} from './support/fuzz.js';
import { call, type RestResponse } from './support/rest.js';
import { schemaErrors } from './support/schemas.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

vi.setConfig({ testTimeout: FUZZ_TEST_TIMEOUT_MS });

reportRequestsSent('fuzz-rest');

// Bad input never yields a 5xx. Every endpoint of the REST route table (src/rest/routes/table.ts) gets random and
// adversarial values for the parameters it declares (src/rest/params.ts types), for its path parameters and for
// parameters nobody declared: reads anonymously and as the administrator, then writes as the administrator with JSON,
// form and query-string parameters. Each answer is a 2xx or a 4xx with WordPress's error body naming only declared
// parameters; reads change nothing, and a refused write changes nothing either (snapshots of every record).
// A failure prints fast-check's seed and the shrunk request; FUZZ_SEED=<seed> replays it.

interface FuzzEndpoint {
  /** The route as declared, e.g. `/events/(?P<id>\d+)`. */
  pattern: string;
  methods: HttpMethod[];
  params: ParamDeclaration;
}

const ENDPOINTS: FuzzEndpoint[] = ROUTES.flatMap((route) =>
  route.endpoints.map((endpoint) => ({
    pattern: route.pattern,
    methods: [...endpoint.methods],
    params: endpoint.params as ParamDeclaration,
  })),
);
const PATH_VARIABLE = /\(\?P<(\w+)>[^)]*\)/g;
const label = (endpoint: FuzzEndpoint) => `${endpoint.methods.join('/')} ${endpoint.pattern}`;
const isRead = (endpoint: FuzzEndpoint) => endpoint.methods.includes('GET');
const isDelete = (endpoint: FuzzEndpoint) => endpoint.methods.includes('DELETE');

/** Non-path parameters by name, each with values aimed at its declared type. */
function paramArbitraries(endpoint: FuzzEndpoint, longLists: fc.Arbitrary<unknown>) {
  const names = Object.keys(endpoint.params).filter((name) => endpoint.params[name]!.in !== 'path');
  return Object.fromEntries(
    names.map((name) => {
      const type = endpoint.params[name]!.type;
      return [
        name,
        type === 'list'
          ? fc.oneof({ weight: 6, arbitrary: valueFor(type) }, { weight: 1, arbitrary: longLists })
          : valueFor(type),
      ];
    }),
  );
}

/**
 * The parameters of one request: a single declared parameter alone (its error must name it), or any subset of them
 * with parameters nobody declared.
 */
function paramsFor(endpoint: FuzzEndpoint, longLists: fc.Arbitrary<unknown>) {
  const arbitraries = paramArbitraries(endpoint, longLists);
  const names = Object.keys(arbitraries);
  const many = fc
    .tuple(fc.record(arbitraries, { requiredKeys: [] }), fc.dictionary(unknownName, anyValue, { maxKeys: 2 }))
    .map(([declared, unknown]) => ({
      values: { ...unknown, ...declared } as Record<string, unknown>,
      single: undefined as string | undefined,
    }));
  if (names.length === 0) return many;
  const single = fc.constantFrom(...names).chain((name) =>
    arbitraries[name]!.map((value) => ({
      values: { [name]: value } as Record<string, unknown>,
      single: name as string | undefined,
    })),
  );
  return fc.oneof(single, many);
}

describe('REST fuzzing: bad input never yields a 5xx', () => {
  let server: TestServer;
  /** IDs and slugs of existing records, by the route's first segment, so that single routes find something. */
  const known: Record<string, { ids: string[]; slugs: string[] }> = {};

  beforeAll(async () => {
    server = await startServer();
    const venue = await createVenue(server, { city: 'Berlin', latitude: 52.5, longitude: 13.4 });
    const organizer = await createOrganizer(server, { email: 'org@example.org' });
    const parent = await createCategory(server);
    const category = await createCategory(server, { parentId: parent.id });
    const tag = await createTag(server);
    const events = [
      await createEvent(server, {
        venues: [{ id: venue.id }],
        organizers: [{ id: organizer.id }],
        categories: [category.slug],
        tags: [tag.slug],
      }),
      await createEvent(server, { status: 'DRAFT', startDate: '2030-03-01 09:00:00', endDate: '2030-03-01 10:00:00' }),
      await createEvent(server, { password: 'secret', allDay: true }),
    ];
    const record = (list: { id: number; slug: string }[]) => ({
      ids: list.map((item) => String(item.id)),
      slugs: list.map((item) => item.slug),
    });
    Object.assign(known, {
      events: record(events),
      venues: record([venue]),
      organizers: record([organizer]),
      categories: record([parent, category]),
      tags: record([tag]),
    });
  });
  afterAll(() => server?.close());

  /** A concrete path for the route: its variables filled with existing IDs and slugs or with random ones. */
  function pathFor(endpoint: FuzzEndpoint): fc.Arbitrary<string> {
    const segment = endpoint.pattern.split('/')[1] ?? '';
    const records = known[segment] ?? known.events!;
    const variables = [...endpoint.pattern.matchAll(PATH_VARIABLE)].map(([, name]) =>
      name === 'id'
        ? fc.oneof(fc.constantFrom(...records.ids), fc.stringMatching(/^\d{1,22}$/))
        : fc.oneof(
            fc.constantFrom(...records.slugs),
            // Short enough for the URL to stay below Node's 16 KB limit on the request head.
            nastyString.filter((slug) => slug !== '' && slug.length <= 300).map(encodeURIComponentLoosely),
            fc.constantFrom('%FF', '%E0%A4%A', '%', '%2F..', 'a%00b'),
          ),
    );
    return fc.tuple(...variables).map((values) => {
      let index = 0;
      return endpoint.pattern.replace(PATH_VARIABLE, () => values[index++]!);
    });
  }

  /** Checks one answer: below 500, and a 4xx is WordPress's error body whose parameters are declared ones. */
  function expectWellFormed(endpoint: FuzzEndpoint, response: RestResponse, single: string | undefined) {
    const context = `${response.status} ${response.text.slice(0, 500)}`;
    expect(response.status, context).toBeLessThan(500);
    if (response.status < 400) return;
    expect(schemaErrors('error', response.body), context).toEqual([]);
    expect(response.body.data.status, context).toBe(response.status);
    const declared = Object.keys(endpoint.params);
    if (response.body.code === 'rest_invalid_param') {
      const named = Object.keys(response.body.data.params);
      expect(declared, context).toEqual(expect.arrayContaining(named));
      // One parameter sent: the error names it, or a path parameter (the path is random too).
      const pathNames = [...endpoint.pattern.matchAll(PATH_VARIABLE)].map(([, name]) => name);
      if (single)
        expect(named.filter((name) => name === single || pathNames.includes(name)).length, context).toBeGreaterThan(0);
    }
    if (response.body.code === 'rest_missing_callback_param')
      expect(declared, context).toEqual(expect.arrayContaining(response.body.data.params));
  }

  /**
   * Sends `value` as each parameter of `types` alone, on every endpoint declaring one: each is refused with 400
   * naming it, before any database work (anonymously: parameters are read before permissions are checked), and
   * nothing changes.
   */
  async function expectEachRefused(types: string[], value: unknown) {
    const tables = await databaseSnapshot(server);
    // A parameter named like a path variable takes the path's value, whatever the body says.
    const pathNames = (endpoint: FuzzEndpoint) =>
      [...endpoint.pattern.matchAll(PATH_VARIABLE)].map(([, variable]) => variable);
    const cases = ENDPOINTS.flatMap((endpoint) =>
      Object.entries(endpoint.params)
        .filter(([name, param]) => types.includes(param.type) && !pathNames(endpoint).includes(name))
        .map(([name]) => ({ endpoint, name })),
    );
    expect(cases.length).toBeGreaterThan(10);
    for (const { endpoint, name } of cases) {
      const records = known[endpoint.pattern.split('/')[1] ?? ''] ?? known.events!;
      const path = endpoint.pattern.replace(PATH_VARIABLE, (_, variable: string) =>
        variable === 'id' ? records.ids[0]! : records.slugs[0]!,
      );
      const method = endpoint.methods[0]!;
      // Required parameters get plain valid values, so that only the one under test is wrong.
      const required = Object.entries(endpoint.params).filter(([, param]) => param.required && param.in !== 'path');
      const valid = Object.fromEntries(
        required.map(([other, param]) => [
          other,
          param.type === 'date' ? '2030-01-01 10:00:00' : param.type === 'integer' ? 1 : 'x',
        ]),
      );
      const options =
        method === 'GET' ? { query: phpText({ [name]: value }, 'encoded') } : { json: { ...valid, [name]: value } };
      const response = await call(server, method, path, { ...options, headers: { authorization: '' } });
      expectWellFormed(endpoint, response, name);
      expect(
        [response.status, response.body.code, Object.keys(response.body.data?.params ?? {})],
        `${method} ${path} ${name}`,
      ).toEqual([400, 'rest_invalid_param', [name]]);
    }
    expect(await databaseSnapshot(server)).toEqual(tables);
  }

  it('refuses a list of more than 100 items in every list parameter, naming it, before it reaches the database', async () => {
    await expectEachRefused(
      ['list', 'linked'],
      Array.from({ length: 150 }, (_, i) => i + 1),
    );
  });

  it('refuses text with a NUL character in every text parameter, naming it (PostgreSQL cannot store it)', async () => {
    await expectEachRefused(['string', 'date', 'cost', 'list', 'linked'], 'a\u0000b');
  });

  describe('reads', () => {
    let before: unknown;
    let tablesBefore: unknown;
    beforeAll(async () => {
      before = await snapshot(server);
      tablesBefore = await databaseSnapshot(server);
    });

    // Reads change nothing, so they may run side by side.
    it.concurrent.each(ENDPOINTS.filter(isRead).map((endpoint) => [label(endpoint), endpoint] as const))(
      '%s',
      async (_, endpoint) => {
        // Query strings stay below Node's 16 KB header limit: longer ones are refused by Node itself, before the app.
        const shortLists = longIdList.map((ids) => ids.slice(0, 1_500).join(','));
        await fc.assert(
          fc.asyncProperty(
            pathFor(endpoint),
            paramsFor(endpoint, shortLists),
            fc.constantFrom<Wire>('encoded', 'raw'),
            fc.constantFrom(false, false, false, true),
            async (path, { values, single }, wire, asAdmin) => {
              const query = phpText(values, wire);
              fc.pre(query.length < 12_000);
              const response = await call(server, 'GET', path, {
                query,
                headers: asAdmin ? { authorization: ADMIN_AUTHORIZATION } : {},
              });
              expectWellFormed(endpoint, response, single);
            },
          ),
          fuzzRuns(30),
        );
      },
    );

    it('changed no record', async () => {
      expect(await snapshot(server)).toEqual(before);
      expect(await databaseSnapshot(server)).toEqual(tablesBefore);
    });
  });

  describe('writes, as the administrator', () => {
    let current: unknown;
    beforeAll(async () => {
      current = await databaseSnapshot(server);
    });

    type Encoding = 'json' | 'form' | 'query' | 'broken json';
    const body = (
      encoding: Encoding,
      values: Record<string, unknown>,
      wire: Wire,
    ): { raw?: string; query?: string; headers?: Record<string, string> } => {
      if (encoding === 'json') return { raw: JSON.stringify(values), headers: { 'content-type': 'application/json' } };
      if (encoding === 'form')
        return { raw: phpText(values, wire), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
      if (encoding === 'broken json')
        return { raw: JSON.stringify(values).slice(0, -1), headers: { 'content-type': 'application/json' } };
      return { query: phpText(values, wire) };
    };

    // Deletes last: they may remove the records the other writes address.
    const writes = [
      ...ENDPOINTS.filter((endpoint) => !isRead(endpoint) && !isDelete(endpoint)),
      ...ENDPOINTS.filter(isDelete),
    ];
    it.each(writes.map((endpoint) => [label(endpoint), endpoint] as const))('%s', async (_, endpoint) => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...endpoint.methods),
          pathFor(endpoint),
          paramsFor(endpoint, longIdList),
          fc.constantFrom<Encoding>('json', 'json', 'form', 'form', 'query', 'broken json'),
          fc.constantFrom<Wire>('encoded', 'raw'),
          async (method, path, { values, single }, encoding, wire) => {
            const options = body(encoding, values, wire);
            fc.pre((options.query ?? '').length < 12_000);
            const response = await call(server, method, path, {
              ...options,
              headers: { authorization: ADMIN_AUTHORIZATION, ...options.headers },
            });
            expectWellFormed(endpoint, response, single);
            const after = await databaseSnapshot(server);
            if (response.status >= 400) expect(after, `a refused ${method} ${path} changed records`).toEqual(current);
            current = after;
          },
        ),
        fuzzRuns(15),
      );
    });
  });
});

/** Percent-encodes what would change the URL's structure, and leaves the rest for fetch to encode (or not). */
function encodeURIComponentLoosely(text: string): string {
  return text.replace(/[/?#%\s]/g, (char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`);
}
