// Typed fields of events, venues and organizers: addresses, phones and the cost are plain text like titles; a
// website is an http(s) URL written out in full and an e-mail an address as WordPress's is_email takes it, neither
// holding anything that could end the HTML attribute it is put in; and REST answers escape what could close the
// `<script type="application/ld+json">` element a client pastes `json_ld` into. REST and GraphQL writes alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from './support/factories.js';
import { restClient, type RestClient, type RestResponse } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  server = await startServer();
  rest = restClient(server);
});
afterAll(() => server?.close());

const MARKUP = (text: string) => `<b>${text}</b><script>steal()</script> &amp; <i>co</i>`;
const STRIPPED = (text: string) => `${text} & co`;

const VENUE_TEXT_FIELDS = {
  address: 'address',
  city: 'city',
  province: 'province',
  state: 'state',
  zip: 'zip',
  phone: 'phone',
  stateprovince: 'stateProvince',
  country: 'country',
} as const;

function expectInvalidParam(response: RestResponse, param: string): void {
  expect(response.status, response.text).toBe(400);
  expect(response.body.code).toBe('rest_invalid_param');
  expect(Object.keys(response.body.data.params)).toEqual([param]);
}

function expectInputError(result: { errors?: Array<{ extensions?: Record<string, any> }> }, field: string): void {
  expect(result.errors?.length, JSON.stringify(result)).toBe(1);
  expect(result.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
  expect(Object.keys(result.errors![0]!.extensions!.fields)).toEqual([field]);
}

const eventDates = { start_date: '2031-05-01 19:00:00', end_date: '2031-05-01 22:00:00' };

describe('addresses, phones and the cost are plain text', () => {
  it('strips markup from every venue address field written over REST', async () => {
    const json = Object.fromEntries(Object.keys(VENUE_TEXT_FIELDS).map((param) => [param, MARKUP(param)]));
    const created = await rest.post('/venues', { json: { venue: unique('Plain hall'), ...json } });
    expect(created.status, created.text).toBe(201);
    const read = (await rest.get(`/venues/${created.body.id}`)).body;
    for (const param of Object.keys(VENUE_TEXT_FIELDS)) expect(read[param], param).toBe(STRIPPED(param));
  });

  it('strips markup from every venue address field written over GraphQL, on create and on update', async () => {
    const fields = Object.values(VENUE_TEXT_FIELDS);
    const input = Object.fromEntries(fields.map((field) => [field, MARKUP(field)]));
    const created = await server.gqlOk(
      `mutation ($input: VenueInput!) { createVenue(input: $input) { slug ${fields.join(' ')} } }`,
      {
        input: { name: unique('Plain venue'), ...input },
      },
    );
    for (const field of fields) expect(created.createVenue[field], field).toBe(STRIPPED(field));

    const venue = (await rest.get(`/venues/by-slug/${created.createVenue.slug}`)).body;
    const updated = await server.gqlOk(
      `mutation ($id: ID!, $input: VenueInput!) { updateVenue(id: $id, input: $input) { city phone } }`,
      {
        id: venue.id,
        input: { city: '<em>Berlin</em>', phone: '<a href="tel:1">+49 30 1234</a>' },
      },
    );
    expect(updated.updateVenue).toEqual({ city: 'Berlin', phone: '+49 30 1234' });
  });

  it('strips markup from an organizer phone, over REST and GraphQL', async () => {
    const created = await rest.post('/organizers', { json: { organizer: unique('Plain crew'), phone: MARKUP('555') } });
    expect(created.status, created.text).toBe(201);
    expect((await rest.get(`/organizers/${created.body.id}`)).body.phone).toBe(STRIPPED('555'));

    const viaGraphql = await server.gqlOk(
      `mutation ($input: OrganizerInput!) { createOrganizer(input: $input) { phone } }`,
      {
        input: { name: unique('Plain crew'), phone: '<span onclick="x()">+1 555 0100</span>' },
      },
    );
    expect(viaGraphql.createOrganizer.phone).toBe('+1 555 0100');
  });

  it('strips markup from an event cost, over REST and GraphQL, and still reads its amounts', async () => {
    const created = await rest.post('/events', {
      json: { title: unique('Plain cost'), ...eventDates, cost: '<b>$10</b><img src=x onerror=alert(1)> - $20' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.cost_details.values).toEqual(['10', '20']);
    expect(created.body.cost).not.toMatch(/<|onerror/);

    const viaGraphql = await server.gqlOk(`mutation ($input: EventInput!) { createEvent(input: $input) { cost } }`, {
      input: {
        title: unique('Plain cost'),
        startDate: '2031-05-02 19:00:00',
        endDate: '2031-05-02 22:00:00',
        cost: '<script>x()</script>Free &amp; open',
      },
    });
    expect(viaGraphql.createEvent.cost).toBe('Free & open');
  });
});

/** What WHATWG URL parsing accepts but a stored website must not be. */
const BAD_WEBSITES = [
  'http://',
  'http:example.org',
  'http:/example.org',
  'javascript:alert(1)',
  'http://exa mple.org',
  'http://example.org/a b',
  ' https://example.org',
  'https://example.org\n',
  'http://x"y.org',
  'https://example.org/"onmouseover="alert(1)',
  "https://example.org/'onmouseover='alert(1)",
  'https://example.org/</script><script>alert(1)</script>',
  'http://.',
  'http://a..b',
  'http://-bad-.org',
  'http://under_score.org',
];
const GOOD_WEBSITES = [
  'https://example.org',
  'http://localhost:8080/tickets?a=1&b=2#top',
  'https://例え.jp/',
  'HTTPS://Example.ORG/Path%20x',
  'http://192.0.2.1/',
];

const BAD_EMAILS = [
  'nope',
  'a@b',
  '"a"@example.org',
  'a<b>@example.org',
  '<a@example.org>',
  'a b@example.org',
  'a@exa mple.org',
  'a@example.org\n',
  'a\u0007@example.org',
  'a@-example.org',
  'a@example..org',
];
const GOOD_EMAILS = ['info@example.org', "o'brien+events@mail.example.co.uk", 'A.B-C_d@EXAMPLE.ORG'];

describe('websites are http(s) URLs and e-mails are addresses', () => {
  it.each(BAD_WEBSITES)(
    'refuses the website %j for events, venues and organizers over REST, naming website',
    async (website) => {
      expectInvalidParam(
        await rest.post('/events', { json: { title: unique('Bad site'), ...eventDates, website } }),
        'website',
      );
      expectInvalidParam(await rest.post('/venues', { json: { venue: unique('Bad site'), website } }), 'website');
      expectInvalidParam(
        await rest.post('/organizers', { json: { organizer: unique('Bad site'), website } }),
        'website',
      );
    },
  );

  it.each(BAD_WEBSITES)('refuses the website %j over GraphQL, naming website', async (website) => {
    expectInputError(
      await server.gql(`mutation ($input: VenueInput!) { createVenue(input: $input) { slug } }`, {
        input: { name: unique('Bad'), website },
      }),
      'website',
    );
    expectInputError(
      await server.gql(`mutation ($input: OrganizerInput!) { createOrganizer(input: $input) { slug } }`, {
        input: { name: unique('Bad'), website },
      }),
      'website',
    );
  });

  it.each(GOOD_WEBSITES)('stores the website %j as given', async (website) => {
    const venue = await rest.post('/venues', { json: { venue: unique('Good site'), website } });
    expect(venue.status, venue.text).toBe(201);
    expect(venue.body.website).toBe(website);
  });

  it.each(BAD_EMAILS)('refuses the e-mail %j over REST and GraphQL, naming email', async (email) => {
    expectInvalidParam(await rest.post('/organizers', { json: { organizer: unique('Bad mail'), email } }), 'email');
    expectInputError(
      await server.gql(`mutation ($input: OrganizerInput!) { createOrganizer(input: $input) { slug } }`, {
        input: { name: unique('Bad'), email },
      }),
      'email',
    );
  });

  it.each(GOOD_EMAILS)('stores the e-mail %j as given', async (email) => {
    const organizer = await rest.post('/organizers', { json: { organizer: unique('Good mail'), email } });
    expect(organizer.status, organizer.text).toBe(201);
    expect(organizer.body.email).toBe(email);
  });
});

describe('json_ld cannot close the script element it is pasted into', () => {
  const CLOSER = '</script><script>alert(1)</script>';

  it('escapes < > & U+2028 U+2029 in REST answers, keeping every value as it was', async () => {
    const created = await server.gqlOk(`mutation ($input: EventInput!) { createEvent(input: $input) { slug } }`, {
      input: {
        title: `${unique('LD event')} ${CLOSER} \u2028line\u2029para`,
        description: `<p>A &lt;/script&gt; night ${CLOSER}</p>`,
        excerpt: `<p>Tom &amp; Jerry ${CLOSER}</p>`,
        startDate: '2031-05-03 19:00:00',
        endDate: '2031-05-03 22:00:00',
        cost: '10',
        // Kept as typed (not a plain-text field), so only the answer's escaping stands between it and the page.
        currencyCode: CLOSER,
        venues: [{ new: { name: `${unique('LD hall')} ${CLOSER}`, city: `Köln ${CLOSER}` } }],
        organizers: [{ new: { name: `${unique('LD crew')} ${CLOSER}` } }],
      },
    });
    const event = await rest.get(`/events/by-slug/${created.createEvent.slug}`);
    expect(event.status, event.text).toBe(200);
    for (const route of [
      `/events/by-slug/${created.createEvent.slug}`,
      `/venues/${event.body.venue.id}`,
      `/organizers/${event.body.organizer[0].id}`,
    ]) {
      const read = await rest.get(route);
      expect(read.status, read.text).toBe(200);
      expect(read.body.json_ld, route).toBeTruthy();
      expect(read.text, route).not.toMatch(/[<>&\u2028\u2029]/);
    }
    expect(event.text).toContain('\\u003c/script\\u003e');
    expect(event.body.json_ld.offers.priceCurrency).toBe(CLOSER);
    expect(event.body.json_ld.name).toContain('\u2028line\u2029para');
    expect(event.body.json_ld.description).toContain('Tom &amp; Jerry');
  });
});
