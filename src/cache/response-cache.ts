
/** RESPONSE_CACHE_MB / RESPONSE_CACHE_TTL_MS (README "Response cache"). */
export interface ResponseCacheSettings {
  maxBytes: number;
  ttlMs: number;
}

interface Entry {
  version: bigint;
  storedAt: number;
  status: number;
  headers: [string, string][];
  body: Uint8Array<ArrayBuffer>;
}

/** Request headers that change an answer for the same URL: GraphiQL's HTML or JSON, and CORS. */
const VARY = ['accept', 'origin'];

/** Headers that belong to one exchange, never to a remembered answer. */
const PER_RESPONSE = new Set(['x-request-id', 'date', 'set-cookie']);

/**
 * Answers repeated anonymous reads from memory. An answer is reused only while the database's data version
 * (src/db/data-version.ts) is the one it was computed at, so a write made by any process on the same database is
 * visible within the staleness bound of src/db/data-version-watch.ts (README "What keeps reads fast"); a hit costs no
 * statement. Answers also expire after `ttlMs`, because some
 * depend on the clock (the events list starts today by default). Only GETs without credentials or conditional headers
 * are considered, and only 200 answers are kept; the least recently used go first beyond `maxBytes`.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly dataVersion: () => Promise<bigint>,
    private readonly settings: ResponseCacheSettings,
  ) {}

  async answer(request: Request, compute: () => Promise<Response>): Promise<Response> {
    if (!this.considers(request)) return compute();
    const key = cacheKey(request);
    const version = await this.dataVersion();
    const entry = this.entries.get(key);
    if (entry && entry.version === version && Date.now() - entry.storedAt < this.settings.ttlMs) {
      this.touch(key, entry);
      return replay(entry);
    }
    const response = await compute();
    if (response.status !== 200 || !response.body) return response;
    const body = new Uint8Array(await response.arrayBuffer());
    const headers = [...response.headers].filter(([name]) => !PER_RESPONSE.has(name.toLowerCase()));
    this.store(key, { version, storedAt: Date.now(), status: response.status, headers, body });
    return new Response(body, { status: response.status, headers: response.headers });
  }

  private considers(request: Request): boolean {
    if (this.settings.maxBytes === 0 || request.method !== 'GET') return false;
    const { headers } = request;
    return !headers.has('authorization') && !headers.has('if-none-match') && !headers.has('if-modified-since');
  }

  private touch(key: string, entry: Entry) {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  private store(key: string, entry: Entry) {
    const size = entry.body.byteLength + key.length;
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
    this.bytes -= entry.body.byteLength + key.length;
  }
}

function cacheKey(request: Request): string {
  return [request.url, ...VARY.map((name) => request.headers.get(name) ?? '')].join('\n');
}

function replay(entry: Entry): Response {
  return new Response(entry.body, { status: entry.status, headers: entry.headers });
}
