import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ApolloClient, HttpLink, InMemoryCache, gql, type DocumentNode } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { Kind, parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { schema } from '../src/graphql/schema.js';
import { registeredOperations } from '../src/limits/persisted-operations.js';
import { createEvent, unique } from './support/factories.js';
import { restClient } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

// Persisted operations on /graphql (docs/graphql.md): Apollo Client's own link stack against the test
// server, every exchange recorded as it went over HTTP, and raw requests for what a client library would not send.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const UPCOMING = gql`
  query PersistedUpcoming($search: String) {
    events(first: 5, filter: { search: $search, startDate: "2030-01-01" }) {
      totalCount
      edges {
        node {
          title
          slug
        }
      }
    }
  }
`;

/** One request the link made and what it got back. */
interface Exchange {
  method: string;
  sentQuery: boolean;
  sentHash: string | undefined;
  status: number;
  code: string | undefined;
}

/** What a request carried: the JSON body of a POST, or the parameters of a GET (JSON-encoded as Apollo sends them). */
function sentParams(
  url: string,
  init: RequestInit | undefined,
): { query?: string; extensions?: { persistedQuery?: { sha256Hash: string } } } {
  if (init?.body) return JSON.parse(String(init.body));
  const params = new URL(url).searchParams;
  return { query: params.get('query') ?? undefined, extensions: JSON.parse(params.get('extensions') ?? '{}') };
}

/** A fresh Apollo Client (no memory of earlier hashes) with the persisted-query link, recording its exchanges. */
function apolloClient(server: TestServer, options: { useGETForHashedQueries?: boolean } = {}) {
  const exchanges: Exchange[] = [];
  const recordingFetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await fetch(input, init);
    const sent = sentParams(String(input), init);
    const body = (await response.clone().json()) as { errors?: { extensions?: { code?: string } }[] };
    exchanges.push({
      method: init?.method ?? 'GET',
      sentQuery: sent.query !== undefined,
      sentHash: sent.extensions?.persistedQuery?.sha256Hash,
      status: response.status,
      code: body.errors?.[0]?.extensions?.code,
    });
    return response;
  };
  const persisted = new PersistedQueryLink({ sha256, ...options });
  const client = new ApolloClient({
    cache: new InMemoryCache(),
    link: persisted.concat(new HttpLink({ uri: `${server.url}/graphql`, fetch: recordingFetch })),
  });
  const titles = async (query: DocumentNode, variables: Record<string, unknown>) => {
    const { data } = await client.query<any>({ query, variables, fetchPolicy: 'no-cache' });
    return (data.events.edges as { node: { title: string } }[]).map((edge) => edge.node.title);
  };
  return { exchanges, titles };
}

/** The text Apollo Client sends for a document (its cache adds `__typename`), as a front end's manifest holds it. */
const apolloText = (document: DocumentNode) => print(new InMemoryCache().transformDocument(document));

async function postGraphQL(server: TestServer, body: object) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] },
  };
}

const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
const NOT_FOUND = { status: 404, code: 'PERSISTED_QUERY_NOT_FOUND' };

describe('automatic persisted queries (Apollo Client link)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ RESPONSE_CACHE_TTL_MS: '600000' });
  });
  afterAll(() => server?.close());

  it("runs Apollo's round trip over POST: hash only → PERSISTED_QUERY_NOT_FOUND, hash and text → data, then hash only → data", async () => {
    const search = unique('Lantern');
    await createEvent(server, { title: `${search} parade` });
    const first = apolloClient(server);
    expect(await first.titles(UPCOMING, { search })).toEqual([`${search} parade`]);
    const hash = sha256(apolloText(UPCOMING));
    expect(first.exchanges).toEqual([
      { method: 'POST', sentQuery: false, sentHash: hash, ...NOT_FOUND },
      { method: 'POST', sentQuery: true, sentHash: hash, status: 200, code: undefined },
    ]);

    const later = apolloClient(server);
    expect(await later.titles(UPCOMING, { search })).toEqual([`${search} parade`]);
    expect(later.exchanges).toEqual([
      { method: 'POST', sentQuery: false, sentHash: hash, status: 200, code: undefined },
    ]);
  });

  it('runs it over GET with useGETForHashedQueries, and the response cache answers the repeat until a write', async () => {
    const search = unique('Harbour');
    await createEvent(server, { title: `${search} concert` });
    const document = gql`
      query PersistedByGet($search: String) {
        events(first: 5, filter: { search: $search, startDate: "2030-01-01" }) {
          edges {
            node {
              title
            }
          }
        }
      }
    `;
    const first = apolloClient(server, { useGETForHashedQueries: true });
    expect(await first.titles(document, { search })).toEqual([`${search} concert`]);
    // The full text goes by POST (Apollo's link does so), the hash alone by GET.
    expect(first.exchanges.map(({ method, sentQuery, status, code }) => ({ method, sentQuery, status, code }))).toEqual(
      [
        { method: 'GET', sentQuery: false, ...NOT_FOUND },
        { method: 'POST', sentQuery: true, status: 200, code: undefined },
      ],
    );

    const byGet = () => apolloClient(server, { useGETForHashedQueries: true });
    const warm = byGet();
    const computed = await server.countQueries(async () =>
      expect(await warm.titles(document, { search })).toEqual([`${search} concert`]),
    );
    expect(warm.exchanges).toMatchObject([{ method: 'GET', sentQuery: false, status: 200 }]);
    const repeat = byGet();
    const remembered = await server.countQueries(async () =>
      expect(await repeat.titles(document, { search })).toEqual([`${search} concert`]),
    );
    expect(
      remembered,
      'a remembered answer costs no statement but, after this process wrote, the data-version read',
    ).toBeLessThan(computed);

    await createEvent(server, {
      title: `${search} encore`,
      startDate: '2030-01-16 10:00:00',
      endDate: '2030-01-16 12:00:00',
    });
    expect(await byGet().titles(document, { search })).toEqual([`${search} concert`, `${search} encore`]);
  });

  it('refuses a hash that is not the SHA-256 of the text sent with it, and stores nothing', async () => {
    const query = '{ events(first: 1) { totalCount } }';
    const wrongHash = sha256(`${query} `);
    const refused = await postGraphQL(server, { query, extensions: apq(wrongHash) });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ message: 'PersistedQueryMismatch', extensions: { code: 'PERSISTED_QUERY_MISMATCH' } }),
    ]);
    const later = await postGraphQL(server, { extensions: apq(wrongHash) });
    expect({ status: later.status, code: later.body.errors?.[0]?.extensions?.code }).toEqual(NOT_FOUND);
  });

  it('refuses to register a document longer than GRAPHQL_MAX_DOCUMENT_BYTES, and stores nothing', async () => {
    const query = `{ events(first: 1) { totalCount } }${' '.repeat(loadConfig({}).limits.graphql.maxDocumentBytes)}`;
    const refused = await postGraphQL(server, { query, extensions: apq(sha256(query)) });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_LARGE');
    const later = await postGraphQL(server, { extensions: apq(sha256(query)) });
    expect({ status: later.status, code: later.body.errors?.[0]?.extensions?.code }).toEqual(NOT_FOUND);
  });

  it('forgets the least recently used documents beyond GRAPHQL_APQ_STORE_KB', async () => {
    const small = await startServer({ GRAPHQL_APQ_STORE_KB: '1' });
    try {
      // Three documents of about 400 bytes each (with their hashes): the third pushes the first out of 1 KiB.
      const documents = [1, 2, 3].map((n) => `query Stored${n}${'x'.repeat(300)} { events(first: 1) { totalCount } }`);
      for (const query of documents)
        expect((await postGraphQL(small, { query, extensions: apq(sha256(query)) })).status).toBe(200);
      const byHash = async (query: string) => (await postGraphQL(small, { extensions: apq(sha256(query)) })).status;
      expect(await byHash(documents[0]!)).toBe(404);
      expect(await byHash(documents[1]!)).toBe(200);
      expect(await byHash(documents[2]!)).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe('GRAPHQL_PERSISTED_ONLY=true: registered operations only', () => {
  const FRONT_END_QUERY = gql`
    query FrontEndUpcoming($search: String) {
      events(first: 5, filter: { search: $search, startDate: "2030-01-01" }) {
        totalCount
        edges {
          node {
            title
          }
        }
      }
    }
  `;
  const env = (manifestFile: string) => ({
    GRAPHQL_PERSISTED_ONLY: 'true',
    GRAPHQL_PERSISTED_OPERATIONS_FILE: manifestFile,
  });
  let dir: string;
  let manifestFile: string;
  let server: TestServer;
  /** The registered set, as `npm run cli -- persisted-operations` prints it for this configuration. */
  let manifest: Record<string, string>;
  const hashOf = (operationName: string) =>
    Object.keys(manifest).find((hash) => manifest[hash]!.includes(` ${operationName}(`))!;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-persisted-'));
    manifestFile = join(dir, 'persisted-documents.json');
    const frontEndText = apolloText(FRONT_END_QUERY);
    writeFileSync(manifestFile, JSON.stringify({ [sha256(frontEndText)]: frontEndText }));
    server = await startServer(env(manifestFile));
    const cli = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'persisted-operations'], {
      cwd: ROOT,
      env: { ...process.env, ...env(manifestFile) },
    });
    manifest = JSON.parse(cli.stdout);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists every REST operation and the operator's, each under the SHA-256 of its text, with npm run cli -- persisted-operations", () => {
    const restSource = readdirSync(join(ROOT, 'src/read/operations'))
      .filter((name) => name.endsWith('.graphql'))
      .map((name) => readFileSync(join(ROOT, 'src/read/operations', name), 'utf8'));
    const restOperations = parse(restSource.join('\n')).definitions.filter(
      (definition) => definition.kind === Kind.OPERATION_DEFINITION,
    );
    expect(Object.keys(manifest)).toHaveLength(restOperations.length + 1);
    for (const [hash, text] of Object.entries(manifest)) expect(sha256(text), text.slice(0, 60)).toBe(hash);
    expect(hashOf('FrontEndUpcoming')).toBe(sha256(apolloText(FRONT_END_QUERY)));
  });

  it("refuses an ad-hoc query with PERSISTED_QUERY_ONLY, sent plainly or through Apollo's link", async () => {
    const plain = await postGraphQL(server, { query: '{ events(first: 1) { totalCount } }' });
    expect(plain.status).toBe(400);
    expect(plain.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_ONLY' } })]);
    expect(plain.body.errors![0]!.message).toMatch(/Only registered operations/);

    const client = apolloClient(server);
    await expect(client.titles(UPCOMING, { search: 'x' })).rejects.toThrow(/Only registered operations/);
    expect(client.exchanges.map(({ sentQuery, status, code }) => ({ sentQuery, status, code }))).toEqual([
      { sentQuery: false, ...NOT_FOUND },
      { sentQuery: true, status: 400, code: 'PERSISTED_QUERY_ONLY' },
    ]);
  });

  it("runs registered operations by hash: the front end's through Apollo's link, REST's by documentId", async () => {
    const api = restClient(server);
    const search = unique('Orchard');
    const created = await api.post('/events', {
      json: { title: `${search} fair`, start_date: '2030-03-01 10:00:00', end_date: '2030-03-01 12:00:00' },
    });
    expect(created.status).toBe(201);

    const client = apolloClient(server);
    expect(await client.titles(FRONT_END_QUERY, { search })).toEqual([`${search} fair`]);
    expect(client.exchanges).toEqual([
      { method: 'POST', sentQuery: false, sentHash: hashOf('FrontEndUpcoming'), status: 200, code: undefined },
    ]);

    const params = new URLSearchParams({
      documentId: `sha256:${hashOf('RestEventBySlug')}`,
      variables: JSON.stringify({ slug: created.body.slug }),
    });
    const response = await fetch(`${server.url}/graphql?${params}`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).data.eventBySlug).toMatchObject({
      title: `${search} fair`,
      slug: created.body.slug,
    });
  });

  it('leaves the REST routes answering: they run their documents in process', async () => {
    const api = restClient(server);
    const search = unique('Meadow');
    expect(
      (
        await api.post('/events', {
          json: { title: `${search} picnic`, start_date: '2030-04-01 10:00:00', end_date: '2030-04-01 12:00:00' },
        })
      ).status,
    ).toBe(201);
    const list = await api.get('/events', { query: { search, start_date: '2030-01-01', end_date: '2030-12-31' } });
    expect(list.status).toBe(200);
    expect(list.body.events.map((event: { title: string }) => event.title)).toEqual([`${search} picnic`]);
    expect((await api.get('/categories')).status).toBe(200);
  });
});

describe('persisted-operations settings', () => {
  it('stops at start with a one-line reason for a bad switch or a manifest the schema refuses', () => {
    expect(() => loadConfig({ GRAPHQL_PERSISTED_ONLY: 'yes' })).toThrow(
      new ConfigError('GRAPHQL_PERSISTED_ONLY must be true or false, got "yes"'),
    );
    expect(() => loadConfig({ GRAPHQL_APQ_STORE_KB: '0' })).toThrow(ConfigError);
    const dir = mkdtempSync(join(tmpdir(), 'calendar-manifest-'));
    try {
      const file = join(dir, 'manifest.json');
      writeFileSync(file, JSON.stringify({ abc: '{ noSuchField }' }));
      const settings = { ...loadConfig({}).persistedOperations, manifestFile: file };
      expect(() => registeredOperations(settings, schema)).toThrow(
        /^GRAPHQL_PERSISTED_OPERATIONS_FILE .*: the document of "abc" is refused: Cannot query field "noSuchField"/,
      );
      writeFileSync(file, '[1, 2');
      expect(() => registeredOperations(settings, schema)).toThrow(ConfigError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
