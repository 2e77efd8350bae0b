import { expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import { ADMIN_AUTHORIZATION, type TestServer } from './server.js';

// HTTP helpers for the REST contract tests: one call shape for query strings, JSON and form bodies, and the key
// orders of The Events Calendar's records (docs/rest-compatibility.md) to compare `Object.keys` with.

export const NAMESPACE = 'calendar/events/v1';

export interface RestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  /** A query string (without `?`) or a record (arrays are sent as `a[]=1&a[]=2`). */
  query?: string | Record<string, unknown>;
  /** Sent as `application/json`. */
  json?: unknown;
  /** Sent as `application/x-www-form-urlencoded`: a ready string or a record (PHP-style brackets for nesting). */
  form?: string | Record<string, unknown>;
  /** Sent as is, with `content-type` from `headers`. */
  raw?: string;
  headers?: Record<string, string>;
  /** Prefix before the route, default `/wp-json/calendar/events/v1`. */
  base?: string;
}

/** PHP-style form encoding: `a[]=1&a[]=2`, `venue[city]=Berlin`. */
export function phpQuery(record: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (key: string, value: unknown) => {
    if (value === undefined) return;
    if (Array.isArray(value)) value.forEach((item) => add(`${key}[]`, item));
    else if (value !== null && typeof value === 'object') {
      for (const [inner, item] of Object.entries(value)) add(`${key}[${inner}]`, item);
    } else parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value ?? ''))}`);
  };
  for (const [key, value] of Object.entries(record)) add(key, value);
  return parts.join('&');
}

/** Calls a REST route of the test server: `call(server, 'GET', '/events', { query: { per_page: 5 } })`. */
export async function call<T = any>(
  server: TestServer,
  method: string,
  route: string,
  options: CallOptions = {},
): Promise<RestResponse<T>> {
  const query = typeof options.query === 'string' ? options.query : options.query ? phpQuery(options.query) : '';
  const base = options.base ?? `/wp-json/${NAMESPACE}`;
  const joiner = base.includes('?') ? '&' : '?';
  const url = `${server.url}${base}${route}${query ? `${joiner}${query}` : ''}`;
  const headers: Record<string, string> = { ...options.headers };
  // Writes are made by the test administrator unless the test says who (an `authorization` header, '' for nobody).
  if (!('authorization' in headers) && !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase()))
    headers.authorization = ADMIN_AUTHORIZATION;
  if (headers.authorization === '') delete headers.authorization;
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  } else if (options.form !== undefined) {
    body = typeof options.form === 'string' ? options.form : phpQuery(options.form);
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  } else if (options.raw !== undefined) body = options.raw;
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** A REST client bound to one server. */
export function restClient(server: TestServer, defaults: Pick<CallOptions, 'base'> = {}) {
  const at =
    (method: string) =>
    <T = any>(route: string, options: CallOptions = {}) =>
      call<T>(server, method, route, { ...defaults, ...options });
  return {
    get: at('GET'),
    post: at('POST'),
    put: at('PUT'),
    patch: at('PATCH'),
    delete: at('DELETE'),
    options: at('OPTIONS'),
    head: at('HEAD'),
    call: (method: string, route: string, options: CallOptions = {}) =>
      call(server, method, route, { ...defaults, ...options }),
  };
}

export type RestClient = ReturnType<typeof restClient>;

/** §2.1: the event keys in the order the original emits them. */
export const TEC_EVENT_KEYS = [
  'id',
  'global_id',
  'global_id_lineage',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'title',
  'description',
  'excerpt',
  'slug',
  'image',
  'all_day',
  'start_date',
  'start_date_details',
  'end_date',
  'end_date_details',
  'utc_start_date',
  'utc_start_date_details',
  'utc_end_date',
  'utc_end_date_details',
  'timezone',
  'timezone_abbr',
  'cost',
  'cost_details',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'categories',
  'tags',
  'venue',
  'organizer',
] as const;

/**
 * Our event keys: the original's, then `custom_fields` (decision 15), `json_ld` on single GETs, `ticketed` (decision 7),
 * `recurrence` (issue 15; an occurrence adds `recurring_event_id` and `original_start_date`).
 */
export function eventKeys(single = false): string[] {
  return [...TEC_EVENT_KEYS, 'custom_fields', ...(single ? ['json_ld'] : []), 'ticketed', 'recurrence'];
}

/** §2.2: every key a venue may have, in emitted order (empty ones are left out). */
export const VENUE_KEY_ORDER = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'venue',
  'description',
  'excerpt',
  'slug',
  'image',
  'address',
  'city',
  'country',
  'province',
  'state',
  'zip',
  'phone',
  'website',
  'stateprovince',
  'geo_lat',
  'geo_lng',
  'json_ld',
  'show_map',
  'show_map_link',
  'global_id',
  'global_id_lineage',
];

/** §2.3: every key an organizer may have, in emitted order (empty ones are left out). */
export const ORGANIZER_KEY_ORDER = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'organizer',
  'description',
  'excerpt',
  'slug',
  'image',
  'phone',
  'website',
  'email',
  'json_ld',
  'global_id',
  'global_id_lineage',
];

/** §2.4a: embedded term keys, all always present. */
export const EMBEDDED_TERM_KEYS = [
  'name',
  'slug',
  'term_group',
  'term_taxonomy_id',
  'taxonomy',
  'description',
  'parent',
  'count',
  'filter',
  'id',
  'urls',
];

/** §3.1: the list envelope keys, in order, the optional ones included. */
export const ENVELOPE_KEY_ORDER = ['events', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages'];

/** True when `keys` appear in the same relative order as in `order` (and nowhere else). */
export function inOrder(keys: string[], order: readonly string[]): boolean {
  let position = -1;
  for (const key of keys) {
    const next = order.indexOf(key, position + 1);
    if (next === -1) return false;
    position = next;
  }
  return true;
}

/** Wall clock `Y-m-d H:i:s` of a luxon moment. */
export const wallClock = (moment: DateTime) => moment.toFormat('yyyy-MM-dd HH:mm:ss');

/** Today's start in UTC (the test servers' site time zone), plus `days`, at `time` (`HH:mm:ss`). */
export function dayAt(days: number, time = '10:00:00', zone = 'utc'): string {
  return `${DateTime.now().setZone(zone).startOf('day').plus({ days }).toFormat('yyyy-MM-dd')} ${time}`;
}

/** The folder of the original's recorded responses (TEC 6.0.5, kept with the tests). */
export function samplesDir(): string {
  const dir = fileURLToPath(new URL('../fixtures/tec-samples/', import.meta.url));
  if (!existsSync(dir)) throw new Error(`reference samples not found at ${dir}`);
  return dir;
}

/** A sample's parsed JSON body (`03-events-list-default`). */
export function sampleBody(name: string): any {
  return JSON.parse(readFileSync(`${samplesDir()}${name}.json`, 'utf8'));
}

/** A sample's request body, when it has one. */
export function sampleRequest(name: string): any {
  return JSON.parse(readFileSync(`${samplesDir()}${name}.request.json`, 'utf8'));
}

/** A sample's status and headers (names lower-cased). */
export function sampleHeaders(name: string): { status: number; headers: Record<string, string> } {
  const lines = readFileSync(`${samplesDir()}${name}.headers.txt`, 'utf8').split(/\r?\n/);
  const status = Number(/^HTTP\/\S+ (\d{3})/.exec(lines[0] ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  return { status, headers };
}

/** Keys present both in `actual` and in the sample come in the sample's order. */
export function expectSampleOrder(actual: Record<string, unknown>, sample: Record<string, unknown>): void {
  const sampleKeys = Object.keys(sample);
  const shared = Object.keys(actual).filter((key) => sampleKeys.includes(key));
  expect(shared).toEqual(sampleKeys.filter((key) => shared.includes(key)));
}

/** The REST `author` of records the administrator creates: its user ID, as a string. */
export async function adminAuthor(on: TestServer): Promise<string> {
  return String((await on.gqlOk(`{ viewer { databaseId } }`, {}, ADMIN_AUTHORIZATION)).viewer.databaseId);
}
