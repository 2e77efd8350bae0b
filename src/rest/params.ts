import type { DateTime } from 'luxon';
import { MAX_INT } from '../graphql/shared/ids.js';
import { MAX_LIST_ITEMS, unsafeInput } from '../limits/input.js';
import { mayListOtherStatuses } from '../graphql/access.js';
import type { Context } from '../graphql/builder.js';
import { invalidParams } from './errors.js';
import type { PostStatus } from '../read/operations/generated/graphql.js';
import { graphqlStatus, POST_STATUSES } from '../read/serialize.js';

/**
 * One declaration per REST parameter: its type drives coercion (WordPress style), validation, the default and the
 * /doc output. `description` is a key of the message catalogues in src/rest/i18n.
 */
export type ParamSpec =
  | { type: 'integer'; min?: number; max?: number; clampTo?: number; default?: number | DefaultFn<number> }
  | { type: 'number'; min?: number; max?: number; default?: number }
  | { type: 'string'; nonEmpty?: boolean; enum?: readonly string[]; default?: string | DefaultFn<string> }
  | { type: 'boolean'; default?: boolean }
  | { type: 'date'; default?: DefaultFn<string> }
  | {
      type: 'list';
      items: 'integer' | 'string';
      positive?: boolean /** A string sent alone is one item (its commas are its own). */;
      lines?: true;
    }
  | { type: 'linked' }
  | { type: 'cost' };

export type Param = ParamSpec & {
  description: string;
  required?: boolean;
  in?: 'query' | 'path' | 'body';
  /** What the value becomes when sent empty (WordPress treats `''` as "no value" for some params). */
  allowEmpty?: boolean;
};

export type DefaultFn<T> = (context: DefaultContext) => T;

export interface DefaultContext {
  now: DateTime;
  siteTimezone: string;
  /** Reads a date the request sent, once per request (the GraphQL context's `readDate`, which a filter asks again). */
  readDate(text: string): DateTime | null;
}

export type ParamDeclaration = Record<string, Param>;

/** A linked venue or organizer as sent: an ID, `{id}`, an object of fields, or (organizers) a list of those. */
export type LinkedValue = number | Record<string, unknown>;

type Coerced<P extends Param> = P['type'] extends 'integer' | 'number'
  ? number
  : P['type'] extends 'boolean'
    ? boolean
    : P['type'] extends 'list'
      ? P extends { items: 'integer' }
        ? number[]
        : string[]
      : P['type'] extends 'linked'
        ? LinkedValue[]
        : string;

/** The coerced values of a declaration; a parameter not sent and without default is undefined. */
export type ParamValues<D extends ParamDeclaration> = { [K in keyof D]: Coerced<D[K]> | undefined };

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', '']);

export function parseWpBoolean(raw: unknown): boolean | null {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number') return raw === 1 ? true : raw === 0 ? false : null;
  if (typeof raw !== 'string') return null;
  const word = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return null;
}

function parseInteger(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : null;
  if (typeof raw !== 'string' || !/^\s*-?\d{1,15}\s*$/.test(raw)) return null;
  return Number(raw);
}

function parseNumber(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : null;
  if (typeof raw !== 'string' || !/^\s*-?\d+(\.\d+)?\s*$/.test(raw)) return null;
  return Number(raw);
}

/** `a[]=1&a[]=2`, `a=1,2`, a JSON array in a body, or a single value. */
export function toList(raw: unknown): unknown[] | null {
  if (Array.isArray(raw)) return raw;
  if (typeof raw === 'number') return [raw];
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (text.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (Array.isArray(parsed)) return parsed;
      } catch {
        /* not JSON: read as CSV */
      }
    }
    return text === '' ? [] : text.split(',').map((item) => item.trim());
  }
  if (raw && typeof raw === 'object') return Object.values(raw);
  return null;
}

export type CoercionResult = { ok: true; value: unknown } | { ok: false; message: string };

const invalid = (message = 'Invalid parameter.'): CoercionResult => ({ ok: false, message });
const ok = (value: unknown): CoercionResult => ({ ok: true, value });

function coerceList(param: Extract<ParamSpec, { type: 'list' }>, raw: unknown): CoercionResult {
  const items = param.lines && typeof raw === 'string' && !raw.trim().startsWith('[') ? [raw] : toList(raw);
  if (!items || items.length > MAX_LIST_ITEMS) return invalid();
  if (param.items === 'string') {
    if (!items.every((item) => typeof item === 'string' || typeof item === 'number')) return invalid();
    return ok(items.map((item) => String(item).trim()).filter((item) => item !== ''));
  }
  const numbers = items.map(parseInteger);
  if (numbers.some((n) => n === null || Math.abs(n) > MAX_INT || (param.positive && n <= 0))) return invalid();
  return ok(numbers);
}

/** What TEC (PHP's `empty()`) takes for "no venue / no organizer": the link is removed. */
const isEmptyLink = (raw: unknown) => raw === '' || raw === null || raw === false || raw === 0 || raw === '0';

function coerceLinked(raw: unknown): CoercionResult {
  if (isEmptyLink(raw)) return ok([]);
  const single = parseInteger(raw);
  if (single !== null) return single > 0 && single <= MAX_INT ? ok([single]) : invalid();
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    const keys = Object.keys(record);
    // `organizer[]=1&organizer[]=2` arrives from qs as {0: '1', 1: '2'}.
    if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) return coerceLinked(Object.values(record));
    return ok([record]);
  }
  const list = toList(raw);
  if (!list || list.length > MAX_LIST_ITEMS) return invalid();
  const values: LinkedValue[] = [];
  for (const item of list) {
    if (isEmptyLink(item)) continue;
    const id = parseInteger(item);
    if (id !== null && id > 0 && id <= MAX_INT) values.push(id);
    else if (item && typeof item === 'object' && !Array.isArray(item)) values.push(item as Record<string, unknown>);
    else return invalid();
  }
  return ok(values);
}

/** Coerces one raw value (query string, form or JSON) to the declared type, or says why it is invalid. */
export function coerceParam(param: Param, raw: unknown, context: DefaultContext): CoercionResult {
  if (unsafeInput(raw)) return invalid();
  switch (param.type) {
    case 'integer': {
      const n = parseInteger(raw);
      if (n === null || Math.abs(n) > MAX_INT || (param.min !== undefined && n < param.min)) return invalid();
      if (param.max !== undefined && n > param.max) return invalid();
      return ok(param.clampTo !== undefined ? Math.min(n, param.clampTo) : n);
    }
    case 'number': {
      const n = parseNumber(raw);
      if (n === null || (param.min !== undefined && n < param.min) || (param.max !== undefined && n > param.max))
        return invalid();
      return ok(n);
    }
    case 'boolean': {
      const b = parseWpBoolean(raw);
      return b === null ? invalid() : ok(b);
    }
    case 'string': {
      if (typeof raw === 'number') raw = String(raw);
      if (typeof raw !== 'string') return invalid();
      if (param.nonEmpty && raw.trim() === '') return invalid();
      if (param.enum && !param.enum.includes(raw.toLowerCase())) return invalid();
      return ok(param.enum ? raw.toLowerCase() : raw);
    }
    case 'date': {
      if (typeof raw === 'number') raw = String(raw);
      if (typeof raw !== 'string' || !context.readDate(raw)) return invalid();
      return ok(raw);
    }
    case 'list':
      return coerceList(param, raw);
    case 'linked':
      return coerceLinked(raw);
    case 'cost': {
      if (typeof raw === 'string' || typeof raw === 'number') return ok(String(raw));
      const list = toList(raw);
      if (!list?.every((item) => typeof item === 'string' || typeof item === 'number')) return invalid();
      return ok(list.map(String).join(' - '));
    }
  }
}

export function defaultOf(param: Param, context: DefaultContext): unknown {
  const fallback = 'default' in param ? param.default : undefined;
  return typeof fallback === 'function' ? (fallback as DefaultFn<unknown>)(context) : fallback;
}

export interface ParseOutcome {
  values: Record<string, unknown>;
  /** Names of required parameters that were not sent. */
  missing: string[];
  /** Parameter name → message, for values that failed validation. */
  invalid: Record<string, string>;
  /** Names the request actually sent (defaults excluded). */
  sent: Set<string>;
  /** What the request sent for each of them, before coercion (`featured=1` stays `'1'`), for links that repeat it. */
  sentAs: Record<string, unknown>;
}

/** Applies a declaration to the request's raw parameters, in WordPress's order: missing first, then invalid. */
export function parseParams(
  declaration: ParamDeclaration,
  raw: Record<string, unknown>,
  context: DefaultContext,
): ParseOutcome {
  const outcome: ParseOutcome = { values: {}, missing: [], invalid: {}, sent: new Set(), sentAs: {} };
  for (const [name, param] of Object.entries(declaration)) {
    const value = raw[name];
    if (value === undefined) {
      if (param.required) outcome.missing.push(name);
      else outcome.values[name] = defaultOf(param, context);
      continue;
    }
    outcome.sent.add(name);
    outcome.sentAs[name] = value;
    const result = coerceParam(param, value, context);
    if (result.ok) outcome.values[name] = result.value;
    else outcome.invalid[name] = result.message;
  }
  return outcome;
}

/** Parameters several routes share, declared once. */
export const pageParam = { type: 'integer', min: 1, default: 1, description: 'page' } satisfies Param;
export const MAX_PER_PAGE = 50;
export const perPageParam = {
  type: 'integer',
  min: 1,
  clampTo: MAX_PER_PAGE,
  default: 10,
  description: 'per_page',
} satisfies Param;
/** A record's ID in a path. WordPress's `\d+` takes 0 too, which names no record: 404, like any unknown ID. */
export const idPathParam = { type: 'integer', min: 0, required: true, in: 'path', description: 'id' } satisfies Param;
export const slugPathParam = {
  type: 'string',
  nonEmpty: true,
  required: true,
  in: 'path',
  description: 'slug',
} satisfies Param;

export { POST_STATUSES, type RestPostStatus } from '../read/serialize.js';

/**
 * The `status` filter of a list: registered statuses (or `any`), CSV or array. Who may list what is the GraphQL
 * layer's rule (mayListOtherStatuses), asked here only for `any`, which GraphQL has no word for; `shown` is the
 * effective value `rest_url` carries (`publish` for readers, `any` for writers).
 */
export function listStatuses(
  requested: readonly string[] | undefined,
  context: Context,
): { statuses?: PostStatus[]; shown: string } {
  const asked = (requested ?? []).map((status) => status.trim().toLowerCase()).filter((status) => status !== '');
  if (asked.some((status) => status !== 'any' && !(POST_STATUSES as readonly string[]).includes(status))) {
    throw invalidParams({ status: 'Invalid parameter.' });
  }
  const writer = mayListOtherStatuses(context.viewer.user);
  if (asked.length === 0 || asked.includes('any')) {
    if (asked.includes('any') && !writer) throw invalidParams({ status: 'Invalid parameter.' });
    return { shown: writer ? 'any' : 'publish' };
  }
  return { statuses: asked.map(graphqlStatus), shown: asked.join(',') };
}

export function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

/** Maps REST names to GraphQL input names; the reverse map names REST parameters in errors. */
export class FieldMap {
  private readonly toRest: Record<string, string>;
  constructor(private readonly toGraphQL: Record<string, string>) {
    this.toRest = Object.fromEntries(Object.entries(toGraphQL).map(([rest, gql]) => [gql, rest]));
  }

  /** GraphQL field → REST parameter, for error mapping. */
  get errorFields(): Record<string, string> {
    return this.toRest;
  }

  /** The GraphQL input for the REST parameters that were sent. */
  input(values: Record<string, unknown>, sent: ReadonlySet<string>): Record<string, unknown> {
    const input: Record<string, unknown> = {};
    for (const [rest, gql] of Object.entries(this.toGraphQL)) {
      if (sent.has(rest) && values[rest] !== undefined)
        input[gql] = gql === 'status' ? graphqlStatus(String(values[rest])) : values[rest];
    }
    return input;
  }
}

/** A URL with the query written the way WordPress's add_query_arg leaves new values (not encoded). */
export function rawQueryUrl(base: string, args: [string, unknown][]): string {
  const parts = args.map(([key, value]) => `${key}=${String(value).replace(/[&#%]/g, encodeURIComponent)}`);
  return parts.length ? `${base}?${parts.join('&')}` : base;
}

/** A URL with the query form-encoded, as WordPress re-encodes values already in a URL. */
export function encodedQueryUrl(base: string, args: [string, unknown][]): string {
  const query = new URLSearchParams(args.map(([key, value]) => [key, String(value)])).toString();
  return query ? `${base}?${query}` : base;
}

/** `rest_url`, `next_rest_url` and `previous_rest_url` of a page, in TEC's manner. */
export function pageLinks(base: string, args: [string, unknown][], page: number, pages: number) {
  const withoutPage = args.filter(([key]) => key !== 'page');
  return {
    rest_url: rawQueryUrl(base, args),
    ...(page < pages ? { next_rest_url: encodedQueryUrl(base, [...withoutPage, ['page', page + 1]]) } : {}),
    ...(page > 1 && page - 1 <= pages
      ? { previous_rest_url: encodedQueryUrl(base, page === 2 ? withoutPage : [...withoutPage, ['page', page - 1]]) }
      : {}),
  };
}
