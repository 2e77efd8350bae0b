import qs from 'qs';
import { MAX_INPUT_DEPTH, nestedTooDeep } from '../limits/input.js';
import { NAMESPACE } from '../read/urls.js';
import { RestError } from './errors.js';

/** The original product's namespace, answered as an alias so its integrations work unchanged. */
export const ALIAS_NAMESPACES = ['tribe/events/v1'];
export const LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Where a REST request points: the route below the namespace, and the language segment if any. */
export interface RestTarget {
  /** `''` for the namespace index, else `/events`, `/events/5` … */
  route: string;
  language: Language;
  /** The site index (`/wp-json/`) rather than a namespace. */
  siteIndex: boolean;
}

const QS_OPTIONS = { depth: 5, arrayLimit: 200, parameterLimit: 1000, allowDots: false } as const;

function languageOf(segment: string | undefined): Language {
  const short = segment?.slice(0, 2).toLowerCase();
  return (LANGUAGES as readonly string[]).includes(short ?? '') ? (short as Language) : 'en';
}

function splitNamespace(path: string): string | null {
  const trimmed = path.replace(/\/+$/, '');
  for (const namespace of [NAMESPACE, ...ALIAS_NAMESPACES]) {
    const prefix = `/${namespace}`;
    if (trimmed === prefix) return '';
    if (trimmed.startsWith(`${prefix}/`)) return trimmed.slice(prefix.length);
  }
  return null;
}

/**
 * Finds the REST route in a URL: `/{root}/calendar/events/v1/...`, `/{lang}/{root}/...`, or WordPress's plain form
 * `/?rest_route=/calendar/events/v1/...`. Answers null when the URL is not for the REST API at all.
 */
export function restTarget(url: URL, restRoot: string): RestTarget | null {
  const plain = url.searchParams.get('rest_route');
  if (plain !== null && (url.pathname === '/' || url.pathname === '/index.php')) {
    return targetFrom(plain.startsWith('/') ? plain : `/${plain}`, 'en');
  }
  const match = new RegExp(
    `^(?:/([a-z]{2}(?:[-_][A-Za-z]{2})?))?/${restRoot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/.*)?$`,
  ).exec(url.pathname);
  if (!match) return null;
  return targetFrom(match[2] ?? '/', languageOf(match[1]));
}

function targetFrom(path: string, language: Language): RestTarget {
  if (path === '/' || path === '') return { route: '', language, siteIndex: true };
  const route = splitNamespace(path);
  return route === null ? { route: path, language, siteIndex: false } : { route, language, siteIndex: false };
}

export function isNamespaceRoute(path: string): boolean {
  return splitNamespace(path) !== null;
}

/** Query string parameters, PHP style: `a[]=1&a[]=2`, `venue[city]=Berlin`. */
export function queryParams(url: URL): Record<string, unknown> {
  const params = qs.parse(url.search.replace(/^\?/, ''), QS_OPTIONS) as Record<string, unknown>;
  delete params.rest_route;
  return params;
}

/** The body as text, read as it arrives and refused (413) once it is longer than `maxBytes`: never held whole. */
async function boundedText(request: Request, maxBytes: number): Promise<string> {
  const tooLarge = () => RestError.of('rest_request_too_large', {}, maxBytes);
  if (Number(request.headers.get('content-length') ?? 0) > maxBytes) throw tooLarge();
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Released, not cancelled, past the limit: cancelling the stream would close the connection before the answer.
  const reader = request.body.getReader();
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      size += chunk.value.byteLength;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk.value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw RestError.of('rest_invalid_json');
  }
}

/** The body's parameters: JSON, or form-encoded (PHP style). Malformed JSON is refused as WordPress does. */
export async function bodyParams(request: Request, maxBytes: number): Promise<Record<string, unknown>> {
  if (request.method === 'GET' || request.method === 'HEAD') return {};
  const type = request.headers.get('content-type') ?? '';
  const text = await boundedText(request, maxBytes);
  if (text.trim() === '') return {};
  if (type.includes('application/json')) {
    const parsed = parseJson(text);
    if (nestedTooDeep(parsed)) throw RestError.of('rest_body_too_deep', {}, MAX_INPUT_DEPTH);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  }
  if (type.includes('application/x-www-form-urlencoded') || type === '') {
    return qs.parse(text, QS_OPTIONS) as Record<string, unknown>;
  }
  return {};
}
