import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type Cors, finishAnswer, Representation, type SharedCacheSettings } from '../http/representation.js';
import { keepReadBody, readDeclaredBody } from '../http/request-body.js';
import { headOf, type PlainAnswer, type RequestHead } from '../http/request-head.js';
import { loggedPath, REQUEST_ID_HEADER, type RequestLine, requestIdOf } from '../logging/logger.js';
import { AnswerFacts, type StaleTags, type TableProbe } from './tags.js';

// The response cache: the answers it keeps and when they are stale (ResponseCache), and its front on node:http, where
// a hit is answered before any Fetch Request is built (createCachedAnswers).

/** RESPONSE_CACHE_MB (docs/caching.md). */
export interface ResponseCacheSettings {
  maxBytes: number;
  /** What shared caches in front are told about the answers kept (docs/caching.md, "A CDN or reverse proxy in front"). */
  sharedCaches?: SharedCacheSettings;
}

interface Entry {
  /** The data version and the StaleTags generation it was looked up at. */
  version: bigint;
  generation: number;
  /** What it shows (AnswerFacts), and whether it read what the change log does not report. */
  tags: string[];
  /** Reads of tables it is checked by once their table changed, rather than made stale (AnswerFacts.probes). */
  probes: TableProbe[];
  /** The check of its probes under way, and the data version it checks for. */
  checking?: { version: bigint; result: Promise<boolean> };
  readsUnlogged: boolean;
  /** When the clock changes it (ms since the epoch). */
  validUntil: number;
  /** The answer's bytes, ETag and compressed copies (one per coding, made on first use). */
  representation: Representation;
  /** The bytes it is counted for in the cache's total (its representation's size when it was stored or packed). */
  size: number;
  /** Hits since it was packed (HITS_TO_UNPACK). */
  packedHits: number;
}

/**
 * How a computed answer is made: `facts` (absent when the answer is not kept) gathers what it depends on while it
 * is computed (the request's context reads through it: src/read/request-contexts.ts).
 */
export type Compute = (facts?: AnswerFacts) => Promise<Response>;

/** Which POSTs may be kept (src/cache/graphql-post-key.ts): decided from the head, then from the body's text. */
export interface PostKeys {
  /** The declared length of a body worth reading for a key, or null when the head already rules the POST out. */
  bodyLength(head: RequestHead): number | null;
  /** The key of the POST whose body is `text`, or null when its answer is not kept. */
  keyOf(head: RequestHead, text: string): string | null;
}

/** A remembered answer that is still current. */
export interface Hit {
  /** Its answer as plain data, for a request read straight from node:http (createCachedAnswers below). */
  answer(request: RequestHead): Promise<PlainAnswer>;
}

/** What one look into the cache found (ResponseCache.lookUp). */
export interface CacheLookup {
  readonly hit: Hit | null;
  /** The answer to the request: the hit, or `compute`'s, finished (src/http/representation.ts) and kept when it may be. */
  answer(request: Request, compute: Compute): Promise<Response>;
  /**
   * A POST whose key is in its body: the body's declared length, and the lookup once it is read (`text` null when it
   * could not be). Without it, `answer` reads the body from the Fetch Request.
   */
  readonly body?: { readonly length: number; lookUp(text: string | null): Promise<CacheLookup> };
}

/** The lookup of a request the cache does not consider (credentials, writes): every answer is computed and finished. */
const UNCACHED: CacheLookup = { hit: null, answer: async (request, compute) => finishAnswer(request, await compute()) };

// The request header that changes an answer for the same URL: Accept (GraphiQL's HTML or JSON, GraphQL's media type).
// A request without one accepts anything (RFC 9110, 12.5.1), as `*/*` does, and GraphQL Yoga and the routes answer
// both alike: one entry serves both (HTTP libraries and load generators send none, browsers' fetch `*/*`).
// (Accept-Encoding chooses among a representation's codings; CORS headers are added to every answer after the cache,
// src/http/representation.ts.)
const acceptOf = (request: RequestHead) => request.headers.get('accept') || '*/*';

/** Headers that belong to one exchange, never to a remembered answer. */
const PER_RESPONSE = new Set(['x-request-id', 'date', 'set-cookie']);
const isRemembered = (name: string) => !PER_RESPONSE.has(name) && !name.startsWith('access-control-');

/**
 * Answers repeated anonymous reads from memory, each kept until what it shows changes (docs/caching.md). While it is
 * computed, an answer notes the records and tables it reads and the moment the clock changes it (AnswerFacts); a
 * write, in whichever process, is learnt from the change log once the data version moves (StaleTags, within the
 * staleness bound of src/db/data-version.ts), and makes stale only the answers tagged with what it changed.
 * An answer that read what the log does not report is kept only at the data version it was computed at. A hit
 * costs no statement. Only GETs without credentials are considered (a conditional one is answered 304 from a
 * remembered answer's ETag), and only 200 answers are kept; the least recently used go first beyond `maxBytes`.
 * Every answer leaves finished (src/http/representation.ts).
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  /** Answers being computed, by key, with the data version and generation they were looked up at. */
  private readonly computing = new Map<
    string,
    { version: bigint; generation: number; representation: Promise<Representation | null> }
  >();
  private bytes = 0;
  /** The part of `bytes` held by answers not packed (Representation.pack). */
  private unpackedBytes = 0;
  /** What the cache did since start, read by /metrics (src/metrics). */
  private readonly counts = { hits: 0, misses: 0, evictions: 0, stale: 0 };
  /** What probes answered when asked again, by the read they ask and the data version they were asked at. */
  private readonly probeAnswers = new Map<string, { version: bigint; digest: Promise<string> }>();

  constructor(
    private readonly dataVersion: () => Promise<bigint>,
    private readonly staleTags: StaleTags,
    private readonly settings: ResponseCacheSettings,
    /** What identifies a POST that only reads (a GraphQL query); without it no POST is kept. */
    private readonly postKeys?: PostKeys,
  ) {}

  /**
   * Lookups that found a current answer (`hits`) or none (`misses`, a stale one included), answers dropped for room
   * (`evictions`) and for being out of date (`stale`), and what is kept now.
   */
  stats() {
    return { ...this.counts, entries: this.entries.size, bytes: this.bytes };
  }

  /**
   * A request's one look into the cache, made before it is routed: the remembered answer that is still current, or
   * how to answer it once computed (kept when it may be). The server looks on node:http, before any Fetch Request is
   * built (createCachedAnswers below), and hands a miss down with the request; a caller in this process looks when
   * it fetches. Either way a request enters the cache once.
   */
  async lookUp(request: RequestHead): Promise<CacheLookup> {
    if (this.settings.maxBytes === 0 || request.headers.has('authorization')) return UNCACHED;
    if (request.method === 'GET' || request.method === 'HEAD') return this.lookUpKey(cacheKey(request, request.url));
    if (request.method === 'POST' && this.postKeys) return this.byBody(request, this.postKeys);
    return UNCACHED;
  }

  private async lookUpKey(key: string, validators = true): Promise<CacheLookup> {
    const version = await this.dataVersion();
    await this.staleTags.catchUp(version);
    const generation = this.staleTags.current;
    const hit = await this.current(key, version);
    if (hit) this.counts.hits++;
    else this.counts.misses++;
    return {
      hit: hit && { answer: (request) => hit.answer(request, { validators }) },
      answer: async (fetched, compute) =>
        hit
          ? hit.respond(fetched, { validators })
          : this.remember(key, version, generation, fetched, compute, validators),
    };
  }

  /**
   * A POST whose body decides whether it is a read (a GraphQL query, not a mutation): looked up once the body is
   * read, on node:http (`body`) or from the Fetch Request when it is answered. Its answer carries no validators (no
   * HTTP cache holds a POST's answer).
   */
  private byBody(head: RequestHead, postKeys: PostKeys): CacheLookup {
    const length = postKeys.bodyLength(head);
    if (length === null) return UNCACHED;
    const lookUp = async (text: string | null) => {
      const key = text === null ? null : postKeys.keyOf(head, text);
      return key === null ? UNCACHED : this.lookUpKey(cacheKey(head, key), false);
    };
    return {
      hit: null,
      body: { length, lookUp },
      answer: async (request, compute) => (await lookUp(await bodyText(request))).answer(request, compute),
    };
  }

  /**
   * Computes the answer and keeps it when it may be. Requests for the same key at the same data version that arrive
   * while it is computed wait for it and get the same answer, rather than computing it again each.
   */
  private async remember(
    key: string,
    version: bigint,
    generation: number,
    request: Request,
    compute: Compute,
    validators: boolean,
  ) {
    const pending = this.computing.get(key);
    if (pending && pending.version === version && pending.generation === generation) {
      const shared = await pending.representation;
      if (shared) return shared.respond(request, { validators });
    }
    let share!: (representation: Representation | null) => void;
    const mine = { version, generation, representation: new Promise<Representation | null>((r) => (share = r)) };
    this.computing.set(key, mine);
    try {
      const facts = new AnswerFacts();
      const response = await compute(facts);
      const representation = await Representation.of(response, isRemembered);
      const kept = representation && !facts.readsUnversioned && facts.validUntil > Date.now() ? representation : null;
      if (kept && this.settings.sharedCaches) kept.shareWith(facts, this.settings.sharedCaches);
      share(kept);
      if (!representation) return finishAnswer(request, response);
      if (kept) {
        const { readsUnlogged, validUntil } = facts;
        const tags = [...facts.tags];
        const probes = readsUnlogged ? [] : facts.checkableProbes();
        const size = representation.size;
        const entry = {
          version,
          generation,
          tags,
          probes,
          readsUnlogged,
          validUntil,
          representation,
          size,
          packedHits: 0,
        };
        this.store(key, entry);
      }
      return representation.respond(request, { validators });
    } catch (error) {
      share(null);
      throw error;
    } finally {
      if (this.computing.get(key) === mine) this.computing.delete(key);
    }
  }

  private async current(key: string, version: bigint): Promise<Representation | null> {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (!this.fresh(entry, version) || !(await this.probesHold(entry, version))) {
      if (this.entries.get(key) === entry) {
        this.remove(key);
        this.counts.stale++;
      }
      return null;
    }
    this.touch(key, entry);
    if (entry.representation.packed && ++entry.packedHits >= HITS_TO_UNPACK) this.unpack(key, entry);
    return entry.representation;
  }

  private fresh(entry: Entry, version: bigint): boolean {
    if (Date.now() >= entry.validUntil) return false;
    if (!entry.readsUnlogged) return this.staleTags.fresh(entry.version, entry.generation, entry.tags);
    return entry.version === version && entry.generation === this.staleTags.current;
  }

  /**
   * Whether the reads an entry is checked by still answer as they did, asked again only when a column they depend
   * on changed since the entry's data version; if they do, the entry is right at `version` (every record it shows
   * is tagged, and none changed). Lookups at the same data version share one check.
   */
  private async probesHold(entry: Entry, version: bigint): Promise<boolean> {
    const changed = entry.probes.filter((probe) =>
      this.staleTags.changedColumns(probe.table, probe.columns, entry.version),
    );
    if (changed.length === 0) return true;
    if (entry.checking?.version !== version) {
      const result = this.allAnswerAsBefore(changed, version).then((hold) => {
        if (hold && entry.version < version) entry.version = version;
        return hold;
      });
      entry.checking = { version, result };
    }
    return entry.checking.result;
  }

  /**
   * Asks the probes again, the cheapest first (a page's IDs before a total), until one answers otherwise. Entries
   * that share a read (the pages of one list share its total) share its answer at a data version.
   */
  private async allAnswerAsBefore(probes: TableProbe[], version: bigint): Promise<boolean> {
    try {
      for (const probe of [...probes].sort(byCost))
        if ((await this.askAgain(probe, version)) !== probe.digest) return false;
      return true;
    } catch {
      return false;
    }
  }

  private askAgain(probe: TableProbe, version: bigint): Promise<string> {
    const asked = this.probeAnswers.get(probe.key);
    if (asked?.version === version) return asked.digest;
    if (this.probeAnswers.size >= MAX_PROBE_ANSWERS) this.probeAnswers.clear();
    const digest = probe.repeat();
    this.probeAnswers.set(probe.key, { version, digest });
    digest.catch(() => this.probeAnswers.delete(probe.key));
    return digest;
  }

  private touch(key: string, entry: Entry) {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  /**
   * Keeps `entry`, then makes room: beyond half the budget in answers not packed, the least recently used of them
   * are packed (kept gzipped only); beyond the whole budget, the least recently used answers go.
   */
  private store(key: string, entry: Entry) {
    if (entrySize(key, entry) > this.settings.maxBytes / 8) return;
    this.remove(key);
    this.entries.set(key, entry);
    this.count(key, entry, 1);
    this.makeRoom();
  }

  private makeRoom() {
    for (const [oldest, kept] of this.entries) {
      if (this.unpackedBytes <= this.settings.maxBytes / 2) break;
      if (kept.representation.packable) this.pack(oldest, kept);
    }
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.settings.maxBytes) break;
      this.remove(oldest);
      this.counts.evictions++;
    }
  }

  private pack(key: string, entry: Entry) {
    this.resize(key, entry, () => entry.representation.pack());
  }

  private unpack(key: string, entry: Entry) {
    this.resize(key, entry, () => entry.representation.unpack());
    entry.packedHits = 0;
    this.makeRoom();
  }

  /** Counts an entry again after `change` changed its representation's size. */
  private resize(key: string, entry: Entry, change: () => void) {
    this.count(key, entry, -1);
    change();
    entry.size = entry.representation.size;
    this.count(key, entry, 1);
  }

  private remove(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.count(key, entry, -1);
  }

  /** Adds an entry's bytes to the totals (`sign` 1) or takes them out (-1). */
  private count(key: string, entry: Entry, sign: 1 | -1) {
    const size = sign * entrySize(key, entry);
    this.bytes += size;
    if (!entry.representation.packed) this.unpackedBytes += size;
  }
}

/**
 * Hits that unpack a packed answer: one asked for often again is kept as it is (the least recently used are packed in
 * its place), so that the most asked answers are neither unpacked per request nor packed and unpacked by turns.
 */
const HITS_TO_UNPACK = 16;

/** Probe answers remembered at most (they are small; all are dropped at once when full). */
const MAX_PROBE_ANSWERS = 10_000;
const byCost = (a: TableProbe, b: TableProbe) => Number(a.operation === 'count') - Number(b.operation === 'count');

/** A Fetch Request's body, or null when it cannot be read (the client hung up): GraphQL Yoga then answers as always. */
async function bodyText(request: Request): Promise<string | null> {
  try {
    return await request.clone().text();
  } catch {
    return null;
  }
}

/** The bytes an entry holds, roughly: its representation (as counted when stored or packed), its key and its tags. */
const entrySize = (key: string, entry: Entry) =>
  entry.size + key.length + entry.tags.reduce((sum, tag) => sum + tag.length + 16, 0);

/** What tells one remembered answer from another: the URL (or a POST's key) and Accept. */
function cacheKey(request: RequestHead, identity: string): string {
  return `${identity}\n${acceptOf(request)}`;
}

/**
 * Answers a response-cache hit straight on node:http, without a Fetch Request and Response: building those (and their
 * streams) cost more than the hit itself (profile in bench/results.md, History 8). The answer is the one the whole
 * way would give (same representation, CORS headers, request ID and log line). A POST whose key is in its body (a
 * GraphQL query) has its body read here first, bounded by its Content-Length and `bodyTimeoutMs`. Resolves null when
 * it answered, else the request's lookup (a miss, or a request the cache does not consider), which goes the whole
 * way with it so that the cache is not entered again; a body read here goes with the request.
 */
export function createCachedAnswers(
  cache: ResponseCache,
  cors: Cors,
  writeLine: (line: RequestLine) => void,
  bodyTimeoutMs: number,
) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<CacheLookup | null> => {
    const started = performance.now();
    const request = headOf(req);
    let lookup = await cache.lookUp(request);
    if (lookup.body) lookup = await lookUpBody(req, lookup.body, bodyTimeoutMs);
    if (!lookup.hit) return lookup;
    const answer = await lookup.hit.answer(request);
    cors.decorateAnswer(request, answer);
    const requestId = requestIdOf(request);
    answer.headers.set(REQUEST_ID_HEADER.toLowerCase(), requestId);
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(req.method === 'HEAD' ? undefined : answer.body);
    writeLine({
      requestId,
      method: request.method,
      path: loggedPath(request),
      status: answer.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    });
    return null;
  };
}

/** Decodes as a Fetch Request's text() does (a byte order mark dropped), so that both ways find the same key. */
const utf8 = new TextDecoder();

/** The lookup of a POST by its body, read off `req`; the bytes read are kept for the Fetch Request of a miss. */
async function lookUpBody(
  req: IncomingMessage,
  body: NonNullable<CacheLookup['body']>,
  timeoutMs: number,
): Promise<CacheLookup> {
  const bytes = await readDeclaredBody(req, body.length, timeoutMs);
  if (bytes) keepReadBody(req, bytes);
  return body.lookUp(bytes && utf8.decode(bytes));
}
