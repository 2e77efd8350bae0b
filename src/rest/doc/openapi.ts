import { describe, type Language } from '../i18n/index.js';
import { docText, isDocKey, type DocKey } from '../i18n/doc/index.js';
import type { Param, ParamDeclaration } from '../params.js';
import type { Endpoint, HttpMethod, RouteDefinition } from '../route.js';
import { argumentSchema } from '../routes/index-route.js';
import type { RestUrls } from '../../urls.js';
import { componentSchemas, ref, toOpenApi30, type Schema } from './schemas.js';

export type OpenApiVersion = '3.0' | '3.1';

export interface DocOptions {
  urls: RestUrls;
  /** An SPDX identifier (API_LICENSE). */
  license: string;
  language: Language;
  version: OpenApiVersion;
}

/** What /doc knows about each resource beyond its declarations: the record schema and how its errors read. */
interface Resource {
  schema: string;
  /** An unknown ID answers 404 (events); venues, organizers and terms answer 400 `rest_invalid_param`. */
  unknownIdIs404: boolean;
  /** A page beyond the last answers 404 (terms answer an empty page). */
  pageBeyondLastIs404: boolean;
  /** DELETE moves to the trash (410 on a second DELETE); terms are deleted for good. */
  trash: boolean;
  /** Records can be non-public (drafts, trash, passwords): single reads may answer 403. Terms are always public. */
  restricted: boolean;
  /** The envelope of a list: TEC's for posts, the terms' order otherwise. */
  envelope: 'posts' | 'terms';
}

const POSTS = {
  unknownIdIs404: false,
  pageBeyondLastIs404: true,
  trash: true,
  restricted: true,
  envelope: 'posts',
} as const;
const TERMS = {
  schema: 'Term',
  unknownIdIs404: false,
  pageBeyondLastIs404: false,
  trash: false,
  restricted: false,
  envelope: 'terms',
} as const;

const RESOURCES: Record<string, Resource> = {
  events: { ...POSTS, schema: 'Event', unknownIdIs404: true },
  venues: { ...POSTS, schema: 'Venue' },
  organizers: { ...POSTS, schema: 'Organizer' },
  categories: TERMS,
  tags: TERMS,
};

type OperationKind = 'list' | 'create' | 'read' | 'update' | 'delete';
type Location = 'path' | 'query' | 'body';

/** The names of a WordPress route pattern's variables: `/events/(?P<id>\d+)` → `['id']`. */
export function pathVariables(pattern: string): string[] {
  return [...pattern.matchAll(/\(\?P<(\w+)>/g)].map((match) => match[1]!);
}

/** A WordPress route pattern in OpenAPI's path syntax: `/events/(?P<id>\d+)` → `/events/{id}`. */
export function openApiPath(pattern: string): string {
  let path = '';
  for (let i = 0; i < pattern.length; ) {
    const variable = /^\(\?P<(\w+)>/.exec(pattern.slice(i));
    if (!variable) {
      path += pattern[i++];
      continue;
    }
    // Skip the group's regular expression, which may hold parentheses and escaped characters of its own.
    let depth = 0;
    let j = i;
    for (; j < pattern.length; j++) {
      const char = pattern[j];
      if (char === '\\') j++;
      else if (char === '(') depth++;
      else if (char === ')' && --depth === 0) break;
    }
    path += `{${variable[1]}}`;
    i = j + 1;
  }
  return path;
}

/** The resource a path is about, its first segment: `/events/{id}` and `/events.ics` are about `events`. */
const resourceOf = (path: string) => (path.split('/')[1] ?? '').split('.')[0]!;

const WRITE_METHODS: readonly HttpMethod[] = ['POST', 'PUT', 'PATCH'];
/** The ways to sign in (src/read/request-contexts.ts): either one. */
const SIGNED_IN = [{ applicationPassword: [] }, { bearerToken: [] }];
const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

/** `get`, `post` (one entry for POST/PUT/PATCH, as the original documents them) or `delete`. */
function methodKey(methods: readonly HttpMethod[]): string {
  if (methods.includes('GET')) return 'get';
  if (methods.includes('POST')) return 'post';
  return methods[0]!.toLowerCase();
}

function operationKind(methods: readonly HttpMethod[], single: boolean): OperationKind {
  if (methods.includes('GET')) return single ? 'read' : 'list';
  if (methods.includes('DELETE')) return 'delete';
  return single ? 'update' : 'create';
}

function operationId(key: string, path: string): string {
  const segments = path.split('/').filter(Boolean);
  const words = segments.map((segment, index) => {
    const variable = /^\{(\w+)\}$/.exec(segment);
    if (!variable) return pascal(segment);
    return segments[index - 1]?.startsWith('by-') ? '' : `By${pascal(variable[1]!)}`;
  });
  return key + words.join('');
}

class DocumentBuilder {
  private readonly finish: (schema: Schema) => Schema;

  constructor(private readonly options: DocOptions) {
    this.finish = options.version === '3.1' ? (schema) => schema : toOpenApi30;
  }

  text(key: DocKey): string {
    return docText(key, this.options.language);
  }

  /** The JSON schema of a declared parameter, from the same keywords the namespace index lists. */
  paramSchema(param: Param): Schema {
    const {
      required: _required,
      description: _description,
      ...schema
    } = argumentSchema(param, this.options.language) as Schema;
    switch (param.type) {
      case 'date':
        // TEC's `Y-m-d H:i:s`, ISO 8601, timestamps and relative forms: not RFC 3339, so no `format: date-time`.
        return { type: 'string', examples: ['2017-01-05 14:23:36', '2017-01-05T14:23:36+01:00', 'tomorrow 9am'] };
      case 'list':
        return {
          type: 'array',
          items: { type: param.items, ...(param.items === 'integer' && param.positive ? { minimum: 1 } : {}) },
        };
      case 'linked': {
        const one = [
          { type: 'integer', minimum: 1 },
          { type: 'object', additionalProperties: true },
        ];
        // 0, "0", "", false, JSON null or a list of only those removes the links (PHP's empty(), as in TEC).
        const none = [
          { type: 'integer', enum: [0] },
          { type: 'string', enum: ['', '0'] },
          { type: 'boolean', enum: [false] },
          { type: 'null' },
        ];
        return { oneOf: [...one, { type: 'array', items: { oneOf: [...one, ...none] } }, ...none] };
      }
      case 'cost':
        return {
          oneOf: [
            { type: 'string' },
            { type: 'number' },
            { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }] } },
          ],
        };
      default:
        return schema;
    }
  }

  location(name: string, param: Param, pathNames: string[], hasBody: boolean): Location {
    if (pathNames.includes(name) || param.in === 'path') return 'path';
    if (param.in === 'query' || !hasBody) return 'query';
    return 'body';
  }

  operation(path: string, pathNames: string[], resourceName: string, endpoint: Endpoint): [string, Schema] {
    const key = methodKey(endpoint.methods);
    const kind = operationKind(endpoint.methods, pathNames.length > 0);
    const resource = RESOURCES[resourceName];
    const hasBody = endpoint.methods.some((method) => WRITE_METHODS.includes(method));
    const parameters: Schema[] = [];
    const bodyProperties: Record<string, Schema> = {};
    const bodyRequired: string[] = [];
    for (const [name, param] of Object.entries(endpoint.params as ParamDeclaration)) {
      const description = describe(param.description, this.options.language);
      const location = this.location(name, param, pathNames, hasBody);
      const schema = this.paramSchema(param);
      if (location === 'body') {
        bodyProperties[name] = this.finish({ description, ...schema });
        if (param.required) bodyRequired.push(name);
        continue;
      }
      parameters.push({
        name,
        in: location,
        description,
        required: location === 'path' || !!param.required,
        schema: this.finish(schema),
        ...(location === 'query' && param.type === 'list' ? { style: 'form', explode: false } : {}),
      });
    }
    const summaryKey = endpoint.mediaType ? `op.${resourceName}.feed.${kind}` : `op.${resourceName}.${kind}`;
    const descriptions = [
      ...(kind === 'update' ? [this.text('op.update.methods')] : []),
      ...(kind === 'delete' && resource?.trash ? [this.text('op.delete.force')] : []),
    ];
    const operation: Schema = {
      tags: [resourceName],
      summary: this.text(isDocKey(summaryKey) ? summaryKey : `op.${kind}`),
      ...(descriptions.length ? { description: descriptions.join(' ') } : {}),
      operationId: operationId(key, path),
      ...(parameters.length ? { parameters } : {}),
      ...(Object.keys(bodyProperties).length ? { requestBody: this.requestBody(bodyProperties, bodyRequired) } : {}),
      // Reads work without credentials (they see more with them); writes need them.
      ...(kind === 'list' || kind === 'read' ? {} : { security: SIGNED_IN }),
      responses:
        resourceName === 'doc'
          ? this.docResponses()
          : resourceName === 'changes'
            ? this.changesResponses()
            : endpoint.mediaType
              ? this.feedResponses(kind, endpoint.mediaType, resourceName, resource)
              : this.responses(kind, resourceName, resource),
    };
    return [key, operation];
  }

  requestBody(properties: Record<string, Schema>, required: string[]): Schema {
    const schema = { type: 'object', properties, ...(required.length ? { required } : {}) };
    return {
      required: required.length > 0,
      content: { 'application/x-www-form-urlencoded': { schema }, 'application/json': { schema } },
    };
  }

  error(key: DocKey): Schema {
    return { description: this.text(key), content: { 'application/json': { schema: ref('Error') } } };
  }

  record(key: DocKey, resource: Resource | undefined): Schema {
    return {
      description: this.text(key),
      content: { 'application/json': { schema: resource ? ref(resource.schema) : { type: 'object' } } },
    };
  }

  envelope(resourceName: string, resource: Resource | undefined): Schema {
    const integer = (key: DocKey) => ({ type: 'integer', minimum: 0, description: this.text(key) });
    const url = (key: DocKey) => ({ type: 'string', format: 'uri', description: this.text(key) });
    const list = {
      [resourceName]: {
        type: 'array',
        items: resource ? ref(resource.schema) : { type: 'object' },
        description: this.text('envelope.list'),
      },
    };
    const links = {
      next_rest_url: url('envelope.next_rest_url'),
      previous_rest_url: url('envelope.previous_rest_url'),
    };
    const totals = { total: integer('envelope.total'), total_pages: integer('envelope.total_pages') };
    // Not `format: uri`: like the original, rest_url carries newly added query values unencoded (spaces).
    const restUrl = { rest_url: { type: 'string', description: this.text('envelope.rest_url') } };
    const properties =
      resource?.envelope === 'terms'
        ? { ...restUrl, ...totals, ...list, ...links }
        : { ...list, ...restUrl, ...links, ...totals };
    return { type: 'object', properties, required: [resourceName, 'rest_url', 'total', 'total_pages'] };
  }

  responses(kind: OperationKind, resourceName: string, resource: Resource | undefined): Schema {
    const byId = !resource || resource.unknownIdIs404;
    // Events answer an unknown ID with 404; venues, organizers and terms with 400 rest_invalid_param.
    const notFound = byId ? { 404: this.error('resp.notFound') } : {};
    const badAddress = this.error(byId ? 'resp.read.400' : 'resp.unknown.400');
    const writeErrors = {
      400: this.error('resp.write.400'),
      401: this.error('resp.write.401'),
      403: this.error('resp.write.403'),
    };
    const singleWriteErrors = { ...writeErrors, ...(byId ? {} : { 400: this.error('resp.unknown.400') }) };
    switch (kind) {
      case 'list': {
        const integer = (key: DocKey) => ({
          description: this.text(key),
          schema: this.finish({ type: 'integer', minimum: 0 }),
        });
        return {
          200: {
            description: this.text('resp.list.200'),
            headers: { 'X-TEC-Total': integer('header.total'), 'X-TEC-TotalPages': integer('header.totalPages') },
            content: { 'application/json': { schema: this.finish(this.envelope(resourceName, resource)) } },
          },
          400: this.error('resp.list.400'),
          ...(!resource || resource.pageBeyondLastIs404 ? { 404: this.error('resp.list.404') } : {}),
        };
      }
      case 'read':
        return {
          200: this.record('resp.read.200', resource),
          400: badAddress,
          ...(!resource || resource.restricted ? { 403: this.error('resp.read.403') } : {}),
          ...notFound,
        };
      case 'create':
        return { 201: this.record('resp.create.201', resource), ...writeErrors };
      case 'update':
        return { 200: this.record('resp.update.200', resource), ...singleWriteErrors, ...notFound };
      case 'delete':
        return {
          200: this.record('resp.delete.200', resource),
          ...singleWriteErrors,
          ...notFound,
          ...(!resource || resource.trash ? { 410: this.error('resp.delete.410') } : {}),
        };
    }
  }

  /** A feed's answers: the text with its validators, 304 for a current copy, and the JSON errors of its kind. */
  feedResponses(kind: OperationKind, mediaType: string, resourceName: string, resource: Resource | undefined): Schema {
    const header = (key: DocKey, type: string) => ({ description: this.text(key), schema: this.finish({ type }) });
    const {
      200: _record,
      404: notFound,
      ...errors
    } = this.responses(kind, resourceName, resource) as Record<string, Schema>;
    return {
      200: {
        description: this.text('resp.feed.200'),
        headers: {
          ETag: header('header.etag', 'string'),
          'Last-Modified': header('header.lastModified', 'string'),
          ...(kind === 'list' ? { 'X-TEC-Total': header('header.total', 'integer') } : {}),
        },
        content: { [mediaType.split(';')[0]!]: { schema: this.finish({ type: 'string' }) } },
      },
      304: { description: this.text('resp.feed.304') },
      ...errors,
      // A feed has no pages, so no page beyond the last.
      ...(kind !== 'list' && notFound ? { 404: notFound } : {}),
    };
  }

  /** GET /changes: a page of the change feed, 400 for a bad parameter, 410 for a cursor to be replaced by a full read. */
  changesResponses(): Schema {
    const change = {
      type: 'object',
      properties: {
        type: { type: 'string', enum: ['event', 'venue', 'organizer', 'category', 'tag'] },
        id: { type: 'integer', minimum: 1 },
        action: { type: 'string', enum: ['created', 'updated', 'deleted'] },
        modified_utc: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' },
      },
      required: ['type', 'id', 'action', 'modified_utc'],
    };
    const page = {
      type: 'object',
      properties: { changes: { type: 'array', items: change }, next: { type: 'string' }, more: { type: 'boolean' } },
      required: ['changes', 'next', 'more'],
    };
    return {
      200: {
        description: this.text('resp.changes.200'),
        content: { 'application/json': { schema: this.finish(page) } },
      },
      400: this.error('resp.list.400'),
      410: this.error('resp.changes.410'),
    };
  }

  docResponses(): Schema {
    return {
      200: { description: this.text('resp.doc.200'), content: { 'application/json': { schema: { type: 'object' } } } },
      400: this.error('resp.list.400'),
    };
  }

  pathItem(route: RouteDefinition): [string, Schema] {
    const path = openApiPath(route.pattern);
    const pathNames = pathVariables(route.pattern);
    const resourceName = resourceOf(path);
    const item: Schema = {};
    for (const endpoint of route.endpoints) {
      const [key, operation] = this.operation(path, pathNames, resourceName, endpoint);
      if (!(key in item)) item[key] = operation;
    }
    return [path, item];
  }

  /** OpenAPI 3.1 names a license by its SPDX identifier; 3.0 has a URL only (SPDX's page of the license). */
  private license() {
    const name = this.options.license;
    if (this.options.version === '3.1') return { name, identifier: name };
    return { name, url: `https://spdx.org/licenses/${name}.html` };
  }

  document(routes: RouteDefinition[]) {
    const paths = Object.fromEntries(routes.map((route) => this.pathItem(route)));
    const tagNames = [...new Set(Object.keys(paths).map(resourceOf))];
    const schemas = componentSchemas((key) => this.text(key));
    return {
      openapi: this.options.version === '3.1' ? '3.1.0' : '3.0.0',
      info: {
        version: '1.0.0',
        title: this.text('info.title'),
        description: this.text('info.description'),
        license: this.license(),
      },
      // Without the original's trailing slash: the paths start with one (OpenAPI joins the two as they are).
      servers: [{ url: this.options.urls.api }],
      tags: tagNames.map((name) => {
        const key = `tag.${name}`;
        return { name, ...(isDocKey(key) ? { description: this.text(key) } : {}) };
      }),
      security: [{}, ...SIGNED_IN],
      paths,
      components: {
        schemas: Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, this.finish(schema)])),
        securitySchemes: {
          applicationPassword: {
            type: 'http',
            scheme: 'basic',
            description: this.text('security.applicationPassword'),
          },
          bearerToken: { type: 'http', scheme: 'bearer', description: this.text('security.bearerToken') },
        },
      },
    };
  }
}

/** The OpenAPI document of the given routes (the /doc route passes every route of the namespace). */
export function openApiDocument(routes: RouteDefinition[], options: DocOptions) {
  return new DocumentBuilder(options).document(routes);
}
