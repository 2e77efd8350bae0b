import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gunzipSync, gzip, gzipSync } from 'node:zlib';
import Negotiator from 'negotiator';
import { surrogateKeys, type AnswerFacts } from '../cache/tags.js';
import { toResponse, type PlainAnswer, type RequestHead } from './request-head.js';
import { type CorsOrigins, wellFormedOrigin } from '../config.js';

// Finishing an answer: its content coding (negotiated, then compressed), its entity tag, its Vary header, the
// representation that puts them together (strong ETag, Cache-Control, compression, 304), and its CORS headers.

// ---------------------------------------------------------------------------------------------------------------
// Content codings

export type Bytes = Buffer<ArrayBuffer>;

/**
 * zlib's output, in memory of its own size: a short output is a slice of zlib's 16 KB chunk, which would stay held as
 * long as the copy is kept (a 5 KB gzipped list would hold 16 KB). Not copied into Buffer's shared pool either, whose
 * 8 KB slabs a kept copy would hold. (zlib's typings allow a SharedArrayBuffer under its output; it never is one.)
 */
const asBytes = (buffer: Buffer) =>
  (buffer.byteLength < buffer.buffer.byteLength ? Buffer.from(new Uint8Array(buffer).buffer) : buffer) as Bytes;

/** How hard to compress: `dynamic` for answers computed per request, `static` for files compressed once. */
export type Effort = 'dynamic' | 'static';

// Brotli quality 5 compresses JSON about as well as gzip 9 at a fraction of the time; static files (GraphiQL's 5 MB
// script: 0.25 s at quality 6, 3% larger than at 9, 13% than at 11) are compressed once, so they get a little more.
const BROTLI_QUALITY: Record<Effort, number> = { dynamic: 5, static: 6 };
const GZIP_LEVEL: Record<Effort, number> = { dynamic: 6, static: 9 };

const compressors = {
  br: async (bytes: Uint8Array, effort: Effort) =>
    asBytes(
      await promisify(brotliCompress)(bytes, {
        params: {
          [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY[effort],
          [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        },
      }),
    ),
  gzip: async (bytes: Uint8Array, effort: Effort) =>
    asBytes(await promisify(gzip)(bytes, { level: GZIP_LEVEL[effort] })),
};

export type ContentCoding = keyof typeof compressors;
export type Coding = ContentCoding | 'identity';
export const CONTENT_CODINGS = Object.keys(compressors) as ContentCoding[];
/** The server's preference when the client accepts several equally. */
const CODINGS: readonly Coding[] = ['br', 'gzip', 'identity'];

/**
 * The coding to answer `request` with among `codings` (Accept-Encoding, q=0 refusals included), or null when it
 * accepts none of them.
 */
export function negotiateCoding(request: RequestHead, codings: readonly Coding[] = CODINGS): Coding | null {
  const headers = { 'accept-encoding': request.headers.get('accept-encoding') ?? undefined };
  return (
    (new Negotiator({ headers }).encoding([...codings], { preferred: [...codings] }) as Coding | undefined) ?? null
  );
}

/** What a packed representation (Representation.pack) is sent in, to a client that accepts it. */
const PACKED_CODINGS: readonly Coding[] = ['gzip', 'identity'];

/** `bytes` compressed with `coding`, off the main thread. */
export function encode(coding: ContentCoding, bytes: Uint8Array, effort: Effort): Promise<Bytes> {
  return compressors[coding](bytes, effort);
}

// ---------------------------------------------------------------------------------------------------------------
// Entity tags

/** A strong entity tag naming `body`: equal bytes give equal tags, whatever request produced them. */
export function entityTagOf(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** The tag of the same representation sent with a content coding: `"abc"` → `"abc-br"`. */
export function codedEntityTag(tag: string, coding: string): string {
  return `${tag.slice(0, -1)}-${coding}"`;
}

/** The tags of one content in every coding: a client holding any of them holds the same content. */
export const tagsOfEveryCoding = (tag: string) => [
  tag,
  ...CONTENT_CODINGS.map((coding) => codedEntityTag(tag, coding)),
];

const opaque = (tag: string) => tag.replace(/^W\//, '');

/**
 * Which of `ours` If-None-Match names (weak comparison, RFC 9110 §13.1.2): the first listed tag that is one of ours,
 * `*` for any, or null when none is.
 */
export function matchedEntityTag(ifNoneMatch: string, ours: readonly string[]): string | null {
  if (ifNoneMatch.trim() === '*') return ours[0] ?? null;
  for (const tag of ifNoneMatch.match(/(?:W\/)?"[^"]*"/g) ?? []) {
    const found = ours.find((our) => opaque(our) === opaque(tag));
    if (found) return found;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Vary

/** Adds `names` to the Vary header of `headers`, once each (case-insensitively), keeping what is there. */
export function addVary(
  headers: { get(name: string): string | null | undefined; set(name: string, value: string): unknown },
  ...names: string[]
): void {
  const current = (headers.get('vary') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (current.includes('*')) return;
  const known = new Set(current.map((name) => name.toLowerCase()));
  const added = names.filter((name) => !known.has(name.toLowerCase()));
  if (added.length) headers.set('vary', [...current, ...added].join(', '));
}

/** `response` with headers that can be changed: a Response.error() or a fetched response has immutable ones. */
export function withMutableHeaders(response: Response): Response {
  try {
    response.headers.set('x-mutable-check', '');
    response.headers.delete('x-mutable-check');
    return response;
  } catch {
    return new Response(response.body, response);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The representation

/** Bodies smaller than this are sent as they are: compressing them saves less than its headers and time cost. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Headers a representation decides itself, whatever the answer it was made from carried. */
const DECIDED_HERE = new Set([
  'etag',
  'cache-control',
  'content-length',
  'content-encoding',
  'vary',
  'surrogate-key',
  'cache-tag',
]);

/** Answers that are not one finished body: event streams and incremental (multipart) delivery are passed through. */
const STREAMED = /^(text\/event-stream|multipart\/)/i;

/** Whether the request carries credentials: its answer is for this client alone. */
export const isCredentialed = (request: RequestHead) =>
  request.headers.has('authorization') || request.headers.has('cookie');

/**
 * CDN_MAX_AGE_SECONDS and CDN_STALE_WHILE_REVALIDATE_SECONDS (docs/caching.md, "A CDN or reverse proxy in front"): how
 * long a shared cache that is purged on writes may keep an anonymous answer the response cache keeps.
 */
export interface SharedCacheSettings {
  maxAgeSeconds: number;
  staleWhileRevalidateSeconds: number;
}

/** What a shared cache is told about an answer: its lifetime there, and the tags it is purged by. */
interface Shared {
  facts: Pick<AnswerFacts, 'readsUnlogged' | 'validUntil'>;
  settings: SharedCacheSettings;
  keys: string[];
}

const ANYONE_REVALIDATING = 'public, no-cache';

/**
 * Anyone's cache may keep an anonymous answer, a client's own cache a credentialed one; both ask again (by ETag)
 * before reuse. An anonymous answer whose dependencies are known (`shared`) may be reused by a shared cache without
 * asking, for as long as it is right unless purged: at most CDN_MAX_AGE_SECONDS, never past the moment the clock
 * changes it, and not at all when it read what the change log does not report (no purge would say it changed).
 * Browsers still ask again (max-age=0).
 */
function cacheControlFor(request: RequestHead, shared: Shared | undefined, now = Date.now()): string {
  if (isCredentialed(request)) return 'private, no-cache';
  if (!shared || shared.facts.readsUnlogged) return ANYONE_REVALIDATING;
  const { maxAgeSeconds, staleWhileRevalidateSeconds } = shared.settings;
  const rightFor = Math.floor((shared.facts.validUntil - now) / 1000);
  const maxAge = Math.min(maxAgeSeconds, rightFor);
  if (maxAge <= 0) return ANYONE_REVALIDATING;
  const stale = Math.min(staleWhileRevalidateSeconds, rightFor - maxAge);
  return `public, max-age=0, s-maxage=${maxAge}${stale > 0 ? `, stale-while-revalidate=${stale}` : ''}`;
}

/**
 * A successful answer as bytes (a GET's, or a POST's to be compressed): its strong ETag (a hash of the body unless the
 * route chose one), its Cache-Control, its compressed copies (computed on first use and kept with it, so a remembered
 * answer is compressed once per coding) and the 304 answer to a request that already holds it. A remembered answer
 * the response cache no longer asks for often is packed: only its gzip copy is kept (`pack`).
 */
export class Representation {
  private readonly encoded = new Map<ContentCoding, Promise<Bytes>>();
  private shared: Shared | undefined;
  /** The body's gzip copy, alone, once packed; the body itself is then dropped. */
  private gzipped: Bytes | null = null;

  private constructor(
    private readonly headers: readonly [string, string][],
    private body: Uint8Array | null,
    private readonly etag: string,
    private readonly length: number = body?.byteLength ?? 0,
  ) {}

  /** The representation of `response`, or null when it is not a finished successful body (errors, streams, encoded). */
  static async of(
    response: Response,
    keepHeader: (name: string) => boolean = () => true,
  ): Promise<Representation | null> {
    const type = response.headers.get('content-type') ?? '';
    if (response.status !== 200 || !response.body || STREAMED.test(type) || response.headers.has('content-encoding'))
      return null;
    const body = new Uint8Array(await response.arrayBuffer());
    const etag = strongTag(response.headers.get('etag')) ?? entityTagOf(body);
    const vary = response.headers.get('vary');
    const headers = [...response.headers].filter(([name]) => !DECIDED_HERE.has(name) && keepHeader(name));
    return new Representation(vary ? [...headers, ['vary', vary]] : headers, body, etag);
  }

  /**
   * Lets shared caches (a CDN, a reverse proxy) keep it for anonymous readers (Cache-Control's s-maxage), tagged with
   * what it shows (Surrogate-Key, Cache-Tag) so that a write purges it: for an answer the response cache keeps, whose
   * dependencies `facts` gathered.
   */
  shareWith(facts: AnswerFacts, settings: SharedCacheSettings): void {
    // What it needs of the facts, not the facts: they hold every read's arguments, for the response cache's probes.
    const { readsUnlogged, validUntil } = facts;
    this.shared = { facts: { readsUnlogged, validUntil }, settings, keys: surrogateKeys(facts.allTags()) };
  }

  /** Bytes held, with room for the compressed copies (JSON compresses to well under half); once packed, its copy's. */
  get size(): number {
    if (this.gzipped) return this.gzipped.byteLength;
    return this.length * (this.compressible ? 2 : 1);
  }

  /** Whether it is packed (`pack`). */
  get packed(): boolean {
    return this.gzipped !== null;
  }

  /** Whether `pack` would make it smaller: a body worth compressing, not packed yet. */
  get packable(): boolean {
    return this.gzipped === null && this.compressible;
  }

  private get compressible(): boolean {
    return this.length >= COMPRESSION_THRESHOLD_BYTES;
  }

  /**
   * Keeps the body gzipped only (JSON lists shrink about ninefold; 0.3 ms for a 45 KB list, on this thread so the
   * cache knows the size at once). It is then sent as gzip to a client that accepts gzip, and unpacked (0.05 ms) for
   * one that does not; its ETag and headers do not change.
   */
  pack(): void {
    if (!this.packable || !this.body) return;
    this.gzipped = asBytes(gzipSync(this.body, { level: GZIP_LEVEL.dynamic }));
    this.encoded.clear();
    this.encoded.set('gzip', Promise.resolve(this.gzipped));
    this.body = null;
  }

  /** Keeps the body as it is again, the gzip copy among the others (an answer asked for often again). */
  unpack(): void {
    if (!this.gzipped) return;
    this.body = asBytes(gunzipSync(this.gzipped));
    this.gzipped = null;
  }

  /**
   * The answer to `request`: 304 when it holds this representation (in any coding), else the body in its best coding.
   * Without `validators` (the answer to a POST, which no cache keeps) it is only compressed.
   */
  async respond(request: Request, options: { validators?: boolean } = {}): Promise<Response> {
    return toResponse(await this.answer(request, options));
  }

  /** `respond`'s answer as plain data, for a request read straight from node:http (src/cache/response-cache.ts). */
  async answer(request: RequestHead, { validators = true } = {}): Promise<PlainAnswer> {
    const coding = this.codingFor(request);
    const etag = coding === 'identity' ? this.etag : codedEntityTag(this.etag, coding);
    const headers = new Map(this.headers);
    if (validators) {
      headers.set('etag', etag);
      headers.set('cache-control', cacheControlFor(request, this.shared));
      if (this.shared?.keys.length && !isCredentialed(request)) {
        headers.set('surrogate-key', this.shared.keys.join(' '));
        headers.set('cache-tag', this.shared.keys.join(','));
      }
    }
    addVary(headers, 'Accept-Encoding');
    const held = validators ? this.heldBy(request, etag) : null;
    if (held) {
      headers.set('etag', held);
      headers.delete('content-type');
      return { status: 304, headers, body: null };
    }
    const body = coding === 'identity' ? this.identity() : await this.encodedAs(coding);
    if (coding !== 'identity') headers.set('content-encoding', coding);
    headers.set('content-length', String(body.byteLength));
    return { status: 200, headers, body };
  }

  /**
   * The coding the request prefers among ours (gzip or none once packed); identity for a small body, or when it
   * accepts none of ours.
   */
  private codingFor(request: RequestHead): Coding {
    if (!this.compressible) return 'identity';
    return negotiateCoding(request, this.gzipped ? PACKED_CODINGS : CODINGS) ?? 'identity';
  }

  private identity(): Uint8Array {
    return this.body ?? gunzipSync(this.gzipped!);
  }

  /**
   * The tag the request's copy has when it is current (RFC 9110 §13.2.2: If-None-Match, else If-Modified-Since).
   * A copy in another coding is the same content: its 304 names the tag the client sent, so that a cache updates the
   * copy it holds.
   */
  private heldBy(request: RequestHead, negotiated: string): string | null {
    const ifNoneMatch = request.headers.get('if-none-match');
    if (ifNoneMatch !== null) {
      return matchedEntityTag(ifNoneMatch, [negotiated, ...tagsOfEveryCoding(this.etag)]);
    }
    const since = Date.parse(request.headers.get('if-modified-since') ?? '');
    const modified = Date.parse(this.headers.find(([name]) => name === 'last-modified')?.[1] ?? '');
    return !Number.isNaN(since) && !Number.isNaN(modified) && modified <= since ? negotiated : null;
  }

  private encodedAs(coding: ContentCoding): Promise<Bytes> {
    let bytes = this.encoded.get(coding);
    if (!bytes) {
      bytes = encode(coding, this.identity(), 'dynamic');
      this.encoded.set(coding, bytes);
    }
    return bytes;
  }
}

/** A route's own ETag, if it is a strong one (a weak tag cannot name the bytes of each coding). */
const strongTag = (tag: string | null) => (tag && /^"[^"]*"$/.test(tag) ? tag : null);

/**
 * Finishes an answer to a read or write of the API: a successful GET as its representation (ETag, Cache-Control,
 * compression, 304), another success (GraphQL over POST) compressed; an error is never stored by any cache.
 */
export async function finishAnswer(request: Request, response: Response): Promise<Response> {
  const representation = await Representation.of(response);
  if (representation) return representation.respond(request, { validators: request.method === 'GET' });
  if (response.status < 400) return response;
  const finished = withMutableHeaders(response);
  finished.headers.set('cache-control', 'no-store');
  return finished;
}

// ---------------------------------------------------------------------------------------------------------------
// CORS

// Cross-origin access to the REST and GraphQL APIs, as WordPress answers it for its REST API: the request's origin is
// reflected with credentials allowed, unless CORS_ORIGINS lists the origins allowed. One module decides, for both
// APIs and every answer (errors and 304s included), after the response cache, which never sees these headers.

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
/** Always allowed: what WordPress allows, what browsers' API clients send, and revalidation. */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-WP-Nonce',
  'X-Requested-With',
  'If-None-Match',
  'Content-Disposition',
  'Content-MD5',
];
/** The response headers a page may read besides the CORS-safelisted ones: paging, links, validators, back-off. */
const EXPOSED_HEADERS = 'X-WP-Total, X-WP-TotalPages, X-TEC-Total, X-TEC-TotalPages, Link, ETag, Allow, Retry-After';
const MAX_AGE_SECONDS = '600';

/**
 * Request headers never allowed even when a preflight asks: those the service (or a proxy in front) trusts to
 * describe the connection (TRUST_PROXY reads X-Forwarded-For), and those only a browser may set.
 */
const NEVER_ALLOWED =
  /^(forwarded|x-forwarded-.*|x-real-ip|x-client-ip|true-client-ip|cf-connecting-ip|cookie|cookie2|host|proxy-.*|sec-.*)$/i;
/** An HTTP field name (RFC 9110 §5.1). */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface Cors {
  /** Whether `request` is a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method). */
  isPreflight(request: Request): boolean;
  /** The answer to a preflight: 204 with what may be sent, or `refusal()` (no CORS headers) for an origin not allowed. */
  preflight(request: Request, refusal: (origin: string) => Response): Response;
  /**
   * `response` with the CORS headers its request's origin may have: none for an origin not allowed; without an
   * Origin (not a cross-origin browser request), WordPress's Expose-Headers and Allow-Headers and no origin.
   */
  decorate(request: Request, response: Response): Response;
  /** The same for an answer from memory (src/cache/response-cache.ts), which carries no CORS headers of its own. */
  decorateAnswer(request: RequestHead, answer: PlainAnswer): void;
}

export function createCors(origins: CorsOrigins): Cors {
  const allowed = origins === 'any' ? null : new Set(origins);
  const allowedOrigin = (request: RequestHead) => {
    const origin = wellFormedOrigin(request.headers.get('origin'));
    return origin !== null && (allowed === null || allowed.has(origin)) ? origin : null;
  };
  return {
    isPreflight: (request) =>
      request.method === 'OPTIONS' &&
      request.headers.has('origin') &&
      request.headers.has('access-control-request-method'),
    preflight(request, refusal) {
      const origin = allowedOrigin(request);
      const headers = new Headers({ vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers' });
      if (origin === null) {
        const refused = withoutCors(refusal(String(request.headers.get('origin')).slice(0, 100)));
        addVary(refused.headers, 'Origin');
        return refused;
      }
      headers.set('access-control-allow-origin', origin);
      headers.set('access-control-allow-credentials', 'true');
      headers.set('access-control-allow-methods', ALLOWED_METHODS);
      headers.set(
        'access-control-allow-headers',
        allowedHeaders(request.headers.get('access-control-request-headers')),
      );
      headers.set('access-control-max-age', MAX_AGE_SECONDS);
      return new Response(null, { status: 204, headers });
    },
    decorate(request, response) {
      const decorated = withoutCors(response);
      addVary(decorated.headers, 'Origin');
      for (const [name, value] of corsHeaders(request)) decorated.headers.set(name, value);
      return decorated;
    },
    decorateAnswer(request, answer) {
      addVary(answer.headers, 'Origin');
      for (const [name, value] of corsHeaders(request)) answer.headers.set(name, value);
    },
  };

  /**
   * As WordPress: what may be sent and read is said on every answer; who may read it only to an allowed origin. None
   * for an origin not allowed.
   */
  function corsHeaders(request: RequestHead): [string, string][] {
    const mayReadAndSend: [string, string][] = [
      ['access-control-expose-headers', EXPOSED_HEADERS],
      ['access-control-allow-headers', ALLOWED_HEADERS.join(', ')],
    ];
    if (!request.headers.has('origin')) return mayReadAndSend;
    const origin = allowedOrigin(request);
    if (origin === null) return [];
    return [['access-control-allow-origin', origin], ['access-control-allow-credentials', 'true'], ...mayReadAndSend];
  }
}

/** The always-allowed headers, and those the preflight asks for that are field names the service does not trust. */
function allowedHeaders(requested: string | null): string {
  const names = new Map(ALLOWED_HEADERS.map((name) => [name.toLowerCase(), name]));
  for (const name of (requested ?? '').split(',').map((part) => part.trim())) {
    if (FIELD_NAME.test(name) && !NEVER_ALLOWED.test(name) && names.size < 64) names.set(name.toLowerCase(), name);
  }
  return [...names.values()].join(', ');
}

/** `response` with no CORS headers: this module alone decides them. */
function withoutCors(response: Response): Response {
  const mutable = withMutableHeaders(response);
  for (const name of [...mutable.headers.keys()]) if (name.startsWith('access-control-')) mutable.headers.delete(name);
  return mutable;
}
