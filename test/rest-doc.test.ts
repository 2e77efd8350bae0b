import Ajv2020Import from 'ajv/dist/2020.js';
import AjvImport from 'ajv';
import addFormatsImport from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { de } from '../src/rest/i18n/de.js';
import { DOC_CATALOGUES } from '../src/rest/i18n/doc/index.js';
import { en } from '../src/rest/i18n/en.js';
import { es } from '../src/rest/i18n/es.js';
import { fr } from '../src/rest/i18n/fr.js';
import { describe as describeParam } from '../src/rest/i18n/index.js';
import type { Param, ParamDeclaration } from '../src/rest/params.js';
import { LANGUAGES, type Language } from '../src/rest/i18n/index.js';
import type { HttpMethod } from '../src/rest/route.js';
import { ROUTES } from '../src/rest/routes/table.js';
import {
  createCategory,
  createEvent,
  createOrganizer,
  createTag,
  createVenue,
  daysFromNow,
  unique,
} from './support/factories.js';
import { startServer, type TestServer } from './support/server.js';
import { startImageServer, type ImageServer } from './support/image-server.js';
// Images given by URL are fetched: they come from a local image server.
let images: ImageServer;
beforeAll(async () => {
  images = await startImageServer();
});
afterAll(() => images?.close());

// /doc is generated from the route declarations (src/rest/routes/table.ts). These tests compare the document with
// those declarations, check its translations, and validate real responses against its component schemas.

const SITE = 'https://calendar.example';
const API = '/wp-json/calendar/events/v1';

let server: TestServer;
let doc30: any;
let doc31: any;
let docDe: any;

beforeAll(async () => {
  server = await startServer({ SITE_URL: SITE });
  [doc30, doc31, docDe] = await Promise.all([
    getJson(`${API}/doc`),
    getJson(`${API}/doc?openapi=3.1`),
    getJson(`/de${API}/doc`),
  ]);
});
afterAll(() => server.close());

async function getJson(path: string, init?: RequestInit): Promise<any> {
  const response = await fetch(`${server.url}${path}`, init);
  expect(response.status, `${init?.method ?? 'GET'} ${path}`).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/json');
  return response.json();
}

// ----- what the declarations say, computed here independently of src/rest/doc -----

/** `/events/(?P<id>\d+)` → `/events/{id}` */
const openApiPath = (pattern: string) => pattern.replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}');
const pathNames = (pattern: string) => [...pattern.matchAll(/\(\?P<(\w+)>/g)].map((match) => match[1]!);
const methodKey = (methods: readonly HttpMethod[]) =>
  methods.includes('GET') ? 'get' : methods.includes('DELETE') ? 'delete' : 'post';
const isWrite = (methods: readonly HttpMethod[]) => methods.some((method) => ['POST', 'PUT', 'PATCH'].includes(method));

/** Checks that a documented schema has the type the declaration coerces to. */
function expectDocumentedType(schema: any, param: Param, where: string) {
  const optionTypes = (schema.oneOf ?? []).map((option: any) => option.type);
  switch (param.type) {
    case 'integer':
    case 'number':
    case 'boolean':
    case 'string':
      expect(schema.type, where).toBe(param.type);
      if (param.type === 'string' && param.enum) expect(schema.enum, where).toEqual([...param.enum]);
      break;
    case 'date':
      expect(schema.type, where).toBe('string');
      break;
    case 'list':
      expect(schema.type, where).toBe('array');
      expect(schema.items?.type, where).toBe(param.items);
      break;
    case 'linked':
      expect(optionTypes, where).toEqual(expect.arrayContaining(['integer', 'object', 'array']));
      break;
    case 'cost':
      expect(optionTypes, where).toEqual(expect.arrayContaining(['string', 'array']));
      break;
  }
}

/** Whether a path's GET answers JSON (the iCalendar feeds answer text/calendar; test/ical.test.ts parses those). */
const answersJson = (doc: any, path: string) => 'application/json' in doc.paths[path].get.responses['200'].content;

/** Every schema object of a document part, with its JSON path. */
function* schemaNodes(value: unknown, path = '$', propertyMap = false): Generator<[string, any]> {
  if (!value || typeof value !== 'object') return;
  // A `properties` map names properties (a change's `type` among them): its values are schemas, it is not one.
  if (!Array.isArray(value) && !propertyMap) yield [path, value];
  for (const [key, child] of Object.entries(value))
    yield* schemaNodes(child, `${path}.${key}`, key === 'properties' && !propertyMap);
}

describe('GET /doc', () => {
  it('answers an OpenAPI 3.0.0 document with info, servers and the component schemas', async () => {
    const response = await fetch(`${server.url}${API}/doc`);
    expect(response.status).toBe(200);
    expect(response.headers.get('allow')).toBe('GET');
    expect(doc30.openapi).toBe('3.0.0');
    expect(doc30.info).toEqual({
      version: '1.0.0',
      title: expect.any(String),
      description: expect.stringContaining('openapi=3.1'),
      license: { name: 'GPL-2.0-or-later', url: 'https://spdx.org/licenses/GPL-2.0-or-later.html' },
    });
    // The original ends it with a slash; the paths start with one, and OpenAPI tools join the two as they are.
    expect(doc30.servers).toEqual([{ url: `${SITE}${API}` }]);
    expect(Object.keys(doc30.components.schemas)).toEqual(
      expect.arrayContaining([
        'ImageSize',
        'CostDetails',
        'Term',
        'Image',
        'DateDetails',
        'Event',
        'Venue',
        'Organizer',
      ]),
    );
  });

  it('lists exactly the declared routes, in declaration order, in OpenAPI path syntax', () => {
    expect(Object.keys(doc30.paths)).toEqual(ROUTES.map((route) => openApiPath(route.pattern)));
    expect(Object.keys(doc30.paths)).toContain('/events/{id}');
    expect(Object.keys(doc30.paths)).toContain('/events/by-slug/{slug}');
    expect(Object.keys(doc30.paths)[0]).toBe('/doc');
  });

  it('documents every declared endpoint and every parameter, with its place, type, requirement and description', () => {
    let checked = 0;
    for (const route of ROUTES) {
      const item = doc30.paths[openApiPath(route.pattern)];
      const variables = pathNames(route.pattern);
      expect(Object.keys(item).sort()).toEqual([...new Set(route.endpoints.map((e) => methodKey(e.methods)))].sort());
      for (const endpoint of route.endpoints) {
        const operation = item[methodKey(endpoint.methods)];
        const where = `${methodKey(endpoint.methods).toUpperCase()} ${route.pattern}`;
        expect(operation.summary, where).toEqual(expect.any(String));
        const parameters: any[] = operation.parameters ?? [];
        const body = operation.requestBody?.content?.['application/x-www-form-urlencoded']?.schema;
        if (body) expect(operation.requestBody.content['application/json'].schema, where).toEqual(body);
        const documented = [...parameters.map((p) => p.name), ...Object.keys(body?.properties ?? {})];
        expect(documented.sort(), where).toEqual(Object.keys(endpoint.params).sort());
        for (const [name, param] of Object.entries(endpoint.params as ParamDeclaration)) {
          const at = `${where} ${name}`;
          const description = describeParam(param.description, 'en');
          const inPath = variables.includes(name);
          const parameter = parameters.find((p) => p.name === name);
          if (inPath || !isWrite(endpoint.methods)) {
            expect(parameter, at).toBeDefined();
            expect(parameter.in, at).toBe(inPath ? 'path' : 'query');
            expect(parameter.required, at).toBe(inPath || !!param.required);
            expect(parameter.description, at).toBe(description);
            expectDocumentedType(parameter.schema, param, at);
            if (param.type === 'list') expect([parameter.style, parameter.explode], at).toEqual(['form', false]);
          } else {
            expect(parameter, at).toBeUndefined();
            expect(body.properties[name].description, at).toBe(description);
            expectDocumentedType(body.properties[name], param, at);
            expect((body.required ?? []).includes(name), at).toBe(!!param.required);
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('documents the response codes of each kind of operation', () => {
    const codes = (path: string, method: string) => Object.keys(doc30.paths[path][method].responses);
    expect(codes('/events', 'get')).toEqual(['200', '400', '404']);
    expect(codes('/events', 'post')).toEqual(['201', '400', '401', '403']);
    expect(codes('/events/{id}', 'get')).toEqual(['200', '400', '403', '404']);
    expect(codes('/events/{id}', 'post')).toEqual(['200', '400', '401', '403', '404']);
    expect(codes('/events/{id}', 'delete')).toEqual(['200', '400', '401', '403', '404', '410']);
    const list = doc30.paths['/events'].get.responses['200'];
    expect(list.headers).toHaveProperty('X-TEC-Total');
    expect(list.content['application/json'].schema.properties.events.items).toEqual({
      $ref: '#/components/schemas/Event',
    });
    expect(doc30.paths['/events/{id}'].get.responses['404'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
  });

  it('says how to sign in: optional for reads, required for writes', () => {
    expect(Object.keys(doc30.components.securitySchemes).sort()).toEqual(['applicationPassword', 'bearerToken']);
    expect(doc30.security).toContainEqual({});
    for (const [path, item] of Object.entries<any>(doc30.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (method === 'get') expect(operation.security, path).toBeUndefined();
        else
          expect(operation.security, `${method} ${path}`).toEqual([{ applicationPassword: [] }, { bearerToken: [] }]);
      }
    }
  });

  it('types the records as they are returned (no trailing-space keys, objects as objects, date parts as strings)', () => {
    const { schemas } = doc30.components;
    for (const [path, node] of schemaNodes(schemas)) {
      for (const key of Object.keys(node.properties ?? {})) expect(key, path).toBe(key.trim());
    }
    expect(schemas.CostDetails.properties).toHaveProperty('currency_position');
    expect(schemas.CostDetails.properties.values.items.type).toBe('string');
    expect(schemas.DateDetails.properties.month).toMatchObject({ type: 'string' });
    expect(schemas.Event.properties.author.type).toBe('string');
    expect(schemas.Event.properties.cost_details.allOf).toEqual([{ $ref: '#/components/schemas/CostDetails' }]);
    expect(schemas.Event.properties.start_date_details.allOf).toEqual([{ $ref: '#/components/schemas/DateDetails' }]);
    expect(schemas.Image.properties.sizes.type).toBe('object');
    expect(schemas.Event.properties.image.oneOf).toEqual([
      { $ref: '#/components/schemas/Image' },
      { type: 'boolean', enum: [false] },
    ]);
  });

  it('is also answered under the tribe/events/v1 alias and with ?rest_route=', async () => {
    expect((await getJson('/wp-json/tribe/events/v1/doc')).paths).toEqual(doc30.paths);
    expect((await getJson(`/?rest_route=/calendar/events/v1/doc`)).openapi).toBe('3.0.0');
  });
});

describe('GET /doc in other languages', () => {
  it('describes parameters, operations and schemas in German under /de/wp-json/', () => {
    expect(docDe.openapi).toBe('3.0.0');
    expect(Object.keys(docDe.paths)).toEqual(Object.keys(doc30.paths));
    expect(docDe.info.description).not.toBe(doc30.info.description);
    expect(docDe.info.description).toContain('openapi=3.1');
    expect(docDe.paths['/events'].get.summary).toBe('Veranstaltungen auflisten');
    let compared = 0;
    for (const route of ROUTES) {
      for (const endpoint of route.endpoints) {
        const key = methodKey(endpoint.methods);
        const [english, german] = [doc30, docDe].map((doc) => doc.paths[openApiPath(route.pattern)][key]);
        expect(german.summary).not.toBe(english.summary);
        for (const [name, param] of Object.entries(endpoint.params as ParamDeclaration)) {
          const read = (operation: any) =>
            (operation.parameters ?? []).find((p: any) => p.name === name)?.description ??
            operation.requestBody.content['application/json'].schema.properties[name].description;
          expect(read(german), `${route.pattern} ${name}`).toBe(describeParam(param.description, 'de'));
          expect(read(german), `${route.pattern} ${name}`).not.toBe(read(english));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(50);
    expect(docDe.components.schemas.Event.properties.title.description).not.toBe(
      doc30.components.schemas.Event.properties.title.description,
    );
  });

  it('answers French and Spanish too, and English for an unknown language segment', async () => {
    const [french, spanish, unknown] = await Promise.all([
      getJson(`/fr${API}/doc`),
      getJson(`/es${API}/doc`),
      getJson(`/it${API}/doc`),
    ]);
    expect(french.info.description).not.toBe(doc30.info.description);
    expect(spanish.info.description).not.toBe(doc30.info.description);
    expect(spanish.info.description).not.toBe(french.info.description);
    expect(unknown.info).toEqual(doc30.info);
  });
});

describe('GET /doc?openapi=3.1', () => {
  it('answers the same document as OpenAPI 3.1.0', () => {
    expect(doc31.openapi).toBe('3.1.0');
    expect(doc31.info).toEqual({
      ...doc30.info,
      license: { name: 'GPL-2.0-or-later', identifier: 'GPL-2.0-or-later' },
    });
    expect(doc31.servers).toEqual(doc30.servers);
    expect(Object.keys(doc31.paths)).toEqual(Object.keys(doc30.paths));
    for (const [path, item] of Object.entries<any>(doc31.paths)) {
      expect(Object.keys(item), path).toEqual(Object.keys(doc30.paths[path]));
    }
    expect(Object.keys(doc31.components.schemas)).toEqual(Object.keys(doc30.components.schemas));
  });

  it('uses JSON Schema 2020-12 forms in 3.1 and their 3.0 equivalents in 3.0', () => {
    const venue = (doc: any) =>
      doc.paths['/events'].post.requestBody.content['application/json'].schema.properties.venue;
    expect(venue(doc31).oneOf).toContainEqual({ type: 'null' });
    // 3.0: nullable only beside a type, on exactly one alternative (two would both match null, which oneOf refuses).
    expect(venue(doc30)).not.toHaveProperty('nullable');
    expect(venue(doc30).oneOf.filter((option: any) => option.nullable)).toEqual([
      { type: 'integer', minimum: 1, nullable: true },
    ]);
    expect(doc31.components.schemas.Event.properties.image.oneOf).toContainEqual({ const: false });
    expect(doc31.components.schemas.Event.properties.start_date_details.$ref).toBe('#/components/schemas/DateDetails');
    for (const [path, node] of schemaNodes(doc31)) {
      expect(node, path).not.toHaveProperty('nullable');
      expect(node, path).not.toHaveProperty('example');
    }
    for (const [path, node] of schemaNodes(doc30)) {
      expect(node, path).not.toHaveProperty('const');
      expect(node, path).not.toHaveProperty('examples');
      if (node.type !== undefined) expect(typeof node.type, path).toBe('string');
      expect(node.type, path).not.toBe('null');
      if (node.nullable) expect(typeof node.type, path).toBe('string');
      if ('$ref' in node) expect(Object.keys(node), path).toEqual(['$ref']);
    }
  });

  it('accepts 3.1.0 and 3.0, and refuses other versions with rest_invalid_param', async () => {
    expect((await getJson(`${API}/doc?openapi=3.1.0`)).openapi).toBe('3.1.0');
    expect((await getJson(`${API}/doc?openapi=3.0`)).openapi).toBe('3.0.0');
    const response = await fetch(`${server.url}${API}/doc?openapi=2.0`);
    expect(response.status).toBe(400);
    expect((await response.json()).code).toBe('rest_invalid_param');
  });
});

describe('message catalogues', () => {
  const catalogues: Record<Language, Partial<Record<string, string>>> = { en, de, fr, es };

  it('has every parameter description of en.ts in every language', () => {
    for (const language of LANGUAGES) {
      const missing = Object.keys(en).filter((key) => !catalogues[language][key]?.trim());
      expect(missing, `keys of en.ts missing in ${language}.ts`).toEqual([]);
      const extra = Object.keys(catalogues[language]).filter((key) => !(key in en));
      expect(extra, `keys of ${language}.ts unknown to en.ts`).toEqual([]);
    }
  });

  it('has every /doc text in every language', () => {
    const english = DOC_CATALOGUES.en;
    for (const language of LANGUAGES) {
      const catalogue = DOC_CATALOGUES[language] as Record<string, string>;
      expect(
        Object.keys(english).filter((key) => !catalogue[key]?.trim()),
        `/doc texts missing in ${language}`,
      ).toEqual([]);
      expect(
        Object.keys(catalogue).filter((key) => !(key in english)),
        `/doc texts unknown in ${language}`,
      ).toEqual([]);
    }
  });

  it('has a description for every parameter a route declares', () => {
    const keys = ROUTES.flatMap((route) =>
      route.endpoints.flatMap((e) => Object.values(e.params as ParamDeclaration).map((p) => p.description)),
    );
    expect(keys.filter((key) => !(key in en))).toEqual([]);
  });
});

describe('namespace index and OPTIONS', () => {
  it('lists every route with its methods and arguments, the WordPress way', async () => {
    const index = await getJson(API);
    expect(index.namespace).toBe('calendar/events/v1');
    expect(index._links.up).toEqual([{ href: `${SITE}/wp-json/` }]);
    expect(index.routes['/calendar/events/v1']).toMatchObject({ namespace: 'calendar/events/v1', methods: ['GET'] });
    for (const route of ROUTES) {
      const key = `/calendar/events/v1${route.pattern}`;
      const entry = index.routes[key];
      expect(entry, key).toBeDefined();
      expect(entry.namespace).toBe('calendar/events/v1');
      expect(entry.methods).toEqual(route.endpoints.flatMap((e) => e.methods));
      expect(entry.endpoints.map((e: any) => e.methods)).toEqual(route.endpoints.map((e) => [...e.methods]));
      route.endpoints.forEach((endpoint, i) => {
        const args = entry.endpoints[i].args;
        expect(Object.keys(args).sort(), key).toEqual(Object.keys(endpoint.params).sort());
        for (const [name, param] of Object.entries(endpoint.params as ParamDeclaration)) {
          expect(args[name], `${key} ${name}`).toMatchObject({
            required: !!param.required,
            description: describeParam(param.description, 'en'),
          });
        }
      });
      if (pathNames(route.pattern).length === 0)
        expect(entry._links.self).toEqual([{ href: `${SITE}${API}${route.pattern}` }]);
      else expect(entry._links, key).toBeUndefined();
    }
  });

  it('answers OPTIONS on a route with Allow and the route description', async () => {
    for (const route of ROUTES) {
      const path = route.pattern.replace(/\(\?P<id>[^)]*\)/, '1').replace(/\(\?P<slug>[^)]*\)/, 'some-slug');
      const response = await fetch(`${server.url}${API}${path}`, { method: 'OPTIONS' });
      expect(response.status, path).toBe(200);
      const methods = route.endpoints.flatMap((e) => e.methods);
      expect(response.headers.get('allow'), path).toBe(methods.join(', '));
      const body = await response.json();
      expect(body, path).toMatchObject({ namespace: 'calendar/events/v1', methods });
      expect(
        body.endpoints.map((e: any) => e.methods),
        path,
      ).toEqual(route.endpoints.map((e) => [...e.methods]));
    }
  });
});

describe('the component schemas', () => {
  // ajv and ajv-formats are CommonJS; depending on the loader the class is the default export or its `default`.
  const unwrap = <T>(module: T): T => ((module as { default?: T }).default ?? module) as T;
  const Ajv2020 = unwrap(Ajv2020Import);
  const Ajv = unwrap(AjvImport);
  const addFormats = unwrap(addFormatsImport);

  /** The document's schemas, made strict: an object may only carry the properties the document lists. */
  function strict(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(strict);
    if (!value || typeof value !== 'object') return value;
    const copy = Object.fromEntries(
      Object.entries(value).map(([key, child]) => [
        key,
        key === 'properties'
          ? Object.fromEntries(Object.entries(child as object).map(([name, sub]) => [name, strict(sub)]))
          : strict(child),
      ]),
    );
    if ('properties' in copy && !('additionalProperties' in copy)) copy.additionalProperties = false;
    return copy;
  }

  function validatorFor(doc: any) {
    const ajv = doc.openapi.startsWith('3.1')
      ? new Ajv2020({ allErrors: true, strict: false })
      : new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    ajv.addFormat('double', true);
    ajv.addSchema({ $id: 'https://doc.test/openapi.json', components: strict(doc.components) });
    return (schema: unknown, value: unknown, where: string) => {
      const validate = ajv.compile({
        $id: `https://doc.test/${unique('check')}.json`,
        ...(strict({ x: schema }) as any).x,
      });
      const valid = validate(value);
      expect(valid ? [] : validate.errors, where).toEqual([]);
    };
  }

  it('describe every record, list and error the routes answer, key by key (3.0 and 3.1)', async () => {
    // The change feed answers records only after a cursor: the one of now, before the records below are made.
    const since = (await getJson(`${API}/changes`)).next as string;
    const venue = await createVenue(server, {
      address: '1 Main Street',
      city: 'Springfield',
      latitude: 52.5,
      longitude: 13.4,
      website: 'https://hall.example',
    });
    const organizers = [
      await createOrganizer(server, { email: 'a@example.com', phone: '123' }),
      await createOrganizer(server),
    ];
    const category = await createCategory(server);
    const tag = await createTag(server);
    const start = daysFromNow(3);
    await createEvent(server, {
      startDate: start,
      endDate: daysFromNow(3.1),
      venues: [{ id: venue.id }],
      organizers: organizers.map((o) => ({ id: o.id })),
      categories: [String(category.id)],
      tags: [String(tag.id)],
      image: images.at('/poster.jpg'),
      cost: '10 - 25',
      currencySymbol: '€',
    });
    await createEvent(server, { startDate: daysFromNow(4), endDate: daysFromNow(4.1) });

    for (const doc of [doc30, doc31]) {
      const check = validatorFor(doc);
      // Read the path ref'd schemas through the document: `#/components/...` resolves against openapi.json.
      const rebase = (schema: any): any =>
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"https://doc.test/openapi.json#/components/'));
      let lists = 0;
      for (const route of ROUTES) {
        const path = openApiPath(route.pattern);
        if (path === '/doc' || pathNames(route.pattern).length || !answersJson(doc, path)) continue;
        const list = await getJson(`${API}${path}${path === '/changes' ? `?since=${since}` : ''}`);
        check(
          rebase(doc.paths[path].get.responses['200'].content['application/json'].schema),
          list,
          `GET ${path} (${doc.openapi})`,
        );
        const records: any[] = Object.values(list).find(Array.isArray) as any[];
        expect(records.length, `GET ${path} has records`).toBeGreaterThan(0);
        lists++;
        for (const single of ROUTES.filter(
          (r) => r.pattern.startsWith(`${route.pattern}/`) && r.endpoints.some((e) => e.methods.includes('GET')),
        )) {
          const singlePath = openApiPath(single.pattern);
          if (!answersJson(doc, singlePath)) continue;
          const url = singlePath.replace(/\{(\w+)\}/g, (_, name) => String(records[0][name]));
          const record = await getJson(`${API}${url}`);
          check(
            rebase(doc.paths[singlePath].get.responses['200'].content['application/json'].schema),
            record,
            `GET ${url} (${doc.openapi})`,
          );
        }
      }
      expect(lists).toBeGreaterThan(0);
      const missing = await fetch(`${server.url}${API}/events/99999999`);
      check(
        rebase(doc.paths['/events/{id}'].get.responses['404'].content['application/json'].schema),
        await missing.json(),
        'error',
      );
      const invalid = await fetch(`${server.url}${API}/events?per_page=abc`);
      check(
        rebase(doc.paths['/events'].get.responses['400'].content['application/json'].schema),
        await invalid.json(),
        'error',
      );
    }
  });
});
