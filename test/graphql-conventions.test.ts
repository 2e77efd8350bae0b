import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { buildClientSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from './support/factories.js';
import { restClient, type RestClient } from './support/rest.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// GraphQL conventions clients rely on (issue 29): WPGraphQL's page addressing (`uri` and `link` on every record with a
// public page, `nodeByUri` to read the record a page shows, the way a headless front end routes its pages, through
// Apollo Client and its cache), and scalars that name their specification (`@specifiedBy`) in introspection.

const SITE = 'https://calendar.example.org/site';
let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  server = await startServer({ SITE_URL: SITE });
  rest = restClient(server);
});
afterAll(() => server?.close());

const apollo = () =>
  new ApolloClient({ cache: new InMemoryCache(), link: new HttpLink({ uri: `${server.url}/graphql`, fetch }) });

const BY_URI = gql`
  query Route($uri: String!) {
    nodeByUri(uri: $uri) {
      __typename
      id
      ... on Event { title uri link }
      ... on Venue { name uri link }
      ... on Organizer { name uri link }
      ... on EventCategory { name uri link }
      ... on EventTag { name uri link }
    }
  }
`;

type Json = Record<string, any>;

describe('uri, link and nodeByUri', () => {
  let made: Json;

  beforeAll(async () => {
    const category = unique('Jazz');
    const tag = unique('Outdoor');
    const event = await rest.post('/events', {
      json: {
        title: unique('Café concert'),
        start_date: '2031-05-01 20:00:00',
        end_date: '2031-05-01 22:00:00',
        venue: { venue: unique('Blue Hall') },
        organizer: { organizer: unique('Night Owls') },
        categories: [category],
        tags: [tag],
      },
    });
    expect(event.status, event.text).toBe(201);
    // An event embeds its terms without their page URLs; the terms' own routes give them.
    const termUrl = async (route: string, id: number) => (await rest.get(`/${route}/${id}`)).body.url as string;
    made = {
      ...event.body,
      categoryUrl: await termUrl('categories', event.body.categories[0].id),
      tagUrl: await termUrl('tags', event.body.tags[0].id),
    };
  });

  it('gives each record the REST url as link, and its path below SITE_URL as uri', async () => {
    const data = await server.gqlOk(
      `query ($id: ID!) { event(id: $id) { uri link venues { uri link } organizers { uri link }
        categories { uri link } tags { uri link } } }`,
      { id: String(made.id) },
    );
    const pairs = [
      [data.event, made.url],
      [data.event.venues[0], made.venue.url],
      [data.event.organizers[0], made.organizer[0].url],
      [data.event.categories[0], made.categoryUrl],
      [data.event.tags[0], made.tagUrl],
    ];
    for (const [record, url] of pairs) {
      expect(record.link).toBe(url);
      expect(`${SITE}${record.uri}`).toBe(url);
    }
    expect(data.event.uri).toBe(`/event/${made.slug}/`);
    expect(data.event.categories[0].uri).toBe(`/events/category/${made.categories[0].slug}/`);
    expect(data.event.tags[0].uri).toBe(`/tag/${made.tags[0].slug}/`);
  });

  it('routes every page back to its record through Apollo Client: by uri, by link, and by a path with SITE_URL’s own path', async () => {
    const client = apollo();
    const pages: Array<[string, string, string]> = [
      ['Event', made.url, made.title],
      ['Venue', made.venue.url, made.venue.venue],
      ['Organizer', made.organizer[0].url, made.organizer[0].organizer],
      ['EventCategory', made.categoryUrl, made.categories[0].name],
      ['EventTag', made.tagUrl, made.tags[0].name],
    ];
    for (const [typename, url, name] of pages) {
      const uri = url.slice(SITE.length);
      for (const asked of [uri, url, `/site${uri}`, `${uri}?utm_source=mail`]) {
        const { data } = await client.query({ query: BY_URI, variables: { uri: asked }, fetchPolicy: 'no-cache' });
        const node = (data as Json).nodeByUri;
        expect(node, asked).toMatchObject({ __typename: typename, uri, link: url });
        expect(node.title ?? node.name).toBe(name);
      }
    }
    // The record read by URI is the one its global ID names: the cache keeps one entry.
    const cached = apollo();
    const { data } = await cached.query({ query: BY_URI, variables: { uri: made.url } });
    const byId = await server.gqlOk(`query ($id: ID!) { node(id: $id) { id } }`, { id: (data as Json).nodeByUri.id });
    expect(byId.node.id).toBe((data as Json).nodeByUri.id);
  });

  it('answers null for a page no record has, another site, a path outside SITE_URL, or a route that is not a record', async () => {
    for (const uri of [
      '/event/no-such-event/',
      `/event/${made.slug}/extra/`,
      `https://elsewhere.example.org/site/event/${made.slug}/`,
      `https://calendar.example.org/event/${made.slug}/`,
      '/events/',
      '/',
      `/tag/${made.categories[0].slug}/`,
      '/event/%E0%A4%A/',
      'not a uri at all',
    ]) {
      expect(
        (await server.gqlOk(`query ($uri: String!) { nodeByUri(uri: $uri) { id } }`, { uri })).nodeByUri,
        uri,
      ).toBe(null);
    }
  });

  it('shows a draft only to those who may read it, as event(id:) does', async () => {
    const draft = await rest.post('/events', {
      json: {
        title: unique('Draft'),
        status: 'draft',
        start_date: '2031-06-01 20:00:00',
        end_date: '2031-06-01 21:00:00',
      },
    });
    expect(draft.status, draft.text).toBe(201);
    const query = `query ($uri: String!) { nodeByUri(uri: $uri) { ... on Event { databaseId } } }`;
    const anonymous = await server.gql(query, { uri: `/event/${draft.body.slug}/` }, null);
    const asAnonymousById = await server.gql(
      `query ($id: ID!) { event(id: $id) { id } }`,
      { id: String(draft.body.id) },
      null,
    );
    expect(anonymous.data?.nodeByUri ?? null).toBe(null);
    expect(asAnonymousById.data?.event ?? null).toBe(null);
    const admin = await server.gqlOk(query, { uri: `/event/${draft.body.slug}/` }, ADMIN_AUTHORIZATION);
    expect(admin.nodeByUri).toEqual({ databaseId: draft.body.id });
  });
});

describe('@specifiedBy', () => {
  it('names the specification of DateTime and HTML in introspection, as codegen and GraphiQL read the schema', async () => {
    const introspection = await server.gqlOk(getIntrospectionQuery({ specifiedByUrl: true }));
    const printed = printSchema(buildClientSchema(introspection));
    expect(printed).toContain('scalar DateTime @specifiedBy(url: "https://scalars.graphql.org/andimarek/date-time")');
    expect(printed).toContain('scalar HTML @specifiedBy(url: "https://html.spec.whatwg.org/multipage/syntax.html")');
  });

  it('writes DateTime as that specification defines it: RFC 3339, with seconds and an offset', async () => {
    const data = await server.gqlOk(`query ($id: ID!) { event(id: $id) { startsAt endsAt publishedAt modifiedAt } }`, {
      id: String(
        (await rest.get('/events', { query: { per_page: 1, start_date: '2031-01-01', end_date: '2031-12-31' } })).body
          .events[0].id,
      ),
    });
    for (const value of Object.values(data.event))
      expect(value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  });
});

describe('a venue’s and an organizer’s events take the events list’s filter and order', () => {
  it('lists a venue’s upcoming events first when asked, in either order, filtered as `events` is', async () => {
    const venue = await rest.post('/venues', { json: { venue: unique('Arena') } });
    const organizer = await rest.post('/organizers', { json: { organizer: unique('Host') } });
    const other = await rest.post('/venues', { json: { venue: unique('Other arena') } });
    const event = async (title: string, day: string, extra: Json = {}) => {
      const response = await rest.post('/events', {
        json: {
          title,
          start_date: `${day} 19:00:00`,
          end_date: `${day} 21:00:00`,
          venue: venue.body.id,
          organizer: [organizer.body.id],
          ...extra,
        },
      });
      expect(response.status, response.text).toBe(201);
      return response.body.id as number;
    };
    const past = await event('Past show', '2020-03-01');
    const soon = await event('Soon show', '2031-01-10');
    const later = await event('Later show', '2031-02-10', { featured: true });
    const elsewhere = await event('Elsewhere', '2031-01-11', { venue: other.body.id });
    const query = gql`
      query VenueEvents($id: ID!, $filter: EventsFilter, $orderBy: EventOrderBy, $order: SortOrder) {
        venue(id: $id) {
          id
          events(first: 10, filter: $filter, orderBy: $orderBy, order: $order) { totalCount nodes { id databaseId } }
        }
        organizer(id: $id) { id }
      }
    `;
    const client = apollo();
    const listed = async (variables: Json) => {
      const { data } = await client.query({
        query,
        variables: { id: String(venue.body.id), ...variables },
        fetchPolicy: 'no-cache',
      });
      const events = (data as Json).venue.events;
      expect(events.totalCount).toBe(events.nodes.length);
      return events.nodes.map((node: Json) => node.databaseId);
    };
    expect(await listed({})).toEqual([past, soon, later]);
    expect(await listed({ filter: { startDate: '2030-01-01' } })).toEqual([soon, later]);
    expect(await listed({ orderBy: 'START', order: 'DESC' })).toEqual([later, soon, past]);
    expect(await listed({ filter: { featured: true } })).toEqual([later]);
    expect(await listed({ filter: { search: 'soon' } })).toEqual([soon]);
    const byOrganizer = await server.gqlOk(
      `query ($id: ID!) { organizer(id: $id) { events(filter: { startDate: "2030-01-01" }, order: DESC) { nodes { databaseId } } } }`,
      { id: String(organizer.body.id) },
    );
    expect(byOrganizer.organizer.events.nodes.map((node: Json) => node.databaseId)).toEqual([later, elsewhere, soon]);
    // Several venues in one query, each with its own filtered list.
    const both = await server.gqlOk(
      `query ($a: ID!, $b: ID!) {
        a: venue(id: $a) { events(filter: { startDate: "2030-01-01" }) { nodes { title } } }
        b: venue(id: $b) { events(filter: { startDate: "2030-01-01" }) { nodes { title } } } }`,
      { a: String(venue.body.id), b: String(other.body.id) },
    );
    expect([both.a, both.b].map((v: Json) => v.events.nodes.map((e: Json) => e.title))).toEqual([
      ['Soon show', 'Later show'],
      ['Elsewhere'],
    ]);
    // A bad filter is refused as in `events`.
    const refused = await server.gql(
      `query ($id: ID!) { venue(id: $id) { events(filter: { startDate: "not a date" }) { totalCount } } }`,
      { id: String(venue.body.id) },
    );
    expect(refused.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { startDate: expect.any(String) },
    });
  });
});
