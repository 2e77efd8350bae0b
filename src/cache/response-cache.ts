import { finishAnswer, Representation } from '../http/representation.js';
import type { RequestHead } from '../http/request-head.js';

/** RESPONSE_CACHE_MB / RESPONSE_CACHE_TTL_MS (docs/performance.md, "The response cache"). */
export interface ResponseCacheSettings {
  maxBytes: number;
  ttlMs: number;
}

interface Entry {
  version: bigint;
  storedAt: number;
  /** The answer's bytes, ETag and compressed copies (one per coding, made on first use). */
  representation: Representation;
}

/** What one look into the cache found (ResponseCache.lookUp). */
export interface CacheLookup {
  /** The remembered answer that is still current, or null. */
  readonly hit: Representation | null;
  /** The answer to the request: the hit, or `compute`'s, finished (src/http/representation.ts) and kept when it may be. */
  answer(request: Request, compute: () => Promise<Response>): Promise<Response>;
}

/** The lookup of a request the cache does not consider (credentials, writes): every answer is computed and finished. */
const UNCACHED: CacheLookup = { hit: null, answer: async (request, compute) => finishAnswer(request, await compute()) };

/**
 * Request headers that change an answer for the same URL: GraphiQL's HTML or JSON. (Accept-Encoding chooses among a
 * representation's codings; CORS headers are added to every answer after the cache, src/http/cors.ts.)
 */
const VARY = ['accept'];

/** Headers that belong to one exchange, never to a remembered answer. */
const PER_RESPONSE = new Set(['x-request-id', 'date', 'set-cookie']);
const isRemembered = (name: string) => !PER_RESPONSE.has(name) && !name.startsWith('access-control-');

/**
 * Answers repeated anonymous reads from memory. An answer is reused only while the database's data version
 * (src/db/data-version.ts) is the one it was computed at, so a write made by any process on the same database is
 * visible within the staleness bound of src/db/data-version-watch.ts (docs/performance.md); a hit costs no
 * statement. Answers also expire after `ttlMs`, because some depend on the clock (the events list starts today by
 * default). Only GETs without credentials are considered (a conditional one is answered 304 from a remembered
 * answer's ETag), and only 200 answers are kept; the least recently used go first beyond `maxBytes`. Every answer
 * leaves finished (src/http/representation.ts).
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly dataVersion: () => Promise<bigint>,
    private readonly settings: ResponseCacheSettings,
  ) {}

  /**
   * A request's one look into the cache, made before it is routed: the remembered answer that is still current, or
   * how to answer it once computed (kept when it may be). The server looks on node:http, before any Fetch Request is
   * built (src/http/cached-answers.ts), and hands a miss down with the request; a caller in this process looks when
   * it fetches. Either way a request enters the cache once.
   */
  async lookUp(request: RequestHead): Promise<CacheLookup> {
    if (!this.considers(request)) return UNCACHED;
    const version = await this.dataVersion();
    const key = cacheKey(request);
    const hit = this.current(key, version);
    return {
      hit,
      answer: async (fetched, compute) => (hit ? hit.respond(fetched) : this.remember(key, version, fetched, compute)),
    };
  }

  private async remember(key: string, version: bigint, request: Request, compute: () => Promise<Response>) {
    const response = await compute();
    const representation = await Representation.of(response, isRemembered);
    if (!representation) return finishAnswer(request, response);
    this.store(key, { version, storedAt: Date.now(), representation });
    return representation.respond(request);
  }

  private current(key: string, version: bigint): Representation | null {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version || Date.now() - entry.storedAt >= this.settings.ttlMs) return null;
    this.touch(key, entry);
    return entry.representation;
  }

  private considers(request: RequestHead): boolean {
    if (this.settings.maxBytes === 0 || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
    return !request.headers.has('authorization');
  }

  private touch(key: string, entry: Entry) {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  private store(key: string, entry: Entry) {
    const size = entry.representation.size + key.length;
    if (size > this.settings.maxBytes / 8) return;
    this.remove(key);
    this.entries.set(key, entry);
    this.bytes += size;
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.settings.maxBytes) break;
      this.remove(oldest);
    }
  }

  private remove(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.representation.size + key.length;
  }
}

function cacheKey(request: RequestHead): string {
  return [request.url, ...VARY.map((name) => request.headers.get(name) ?? '')].join('\n');
}
