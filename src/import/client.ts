/**
 * Reading a The Events Calendar site (or another instance of this service) over its REST API: finding the
 * namespace, paging through lists, retrying what may succeed later. Network errors, timeouts, 429 and 5xx answers
 * are retried with exponential backoff (honouring `Retry-After`); any other 4xx is final.
 */
import pRetry from 'p-retry';
import type { PrivateAddresses } from '../config.js';
import { fetchOutbound, OutboundRefusal } from '../net/outbound-fetch.js';
import { asRecord, type RemoteRecord } from './remote.js';

/** Every status but trash: what an authenticated import lists. */
export const EVERY_STATUS = 'publish,future,draft,pending,private';

/** Ours first (an instance of this service answers both, identically), then the original plugin's. */
export const KNOWN_NAMESPACES = ['calendar/events/v1', 'tribe/events/v1'] as const;

export interface SourceOptions {
  /** The site's REST root (`https://example.org/wp-json/`, or `https://example.org/?rest_route=/`). */
  root: string;
  /** Skips the discovery of the namespace. */
  namespace?: string;
  /** HTTP Basic credentials (a WordPress application password) for records that are not public. */
  user?: string;
  password?: string;
  /** Retries of one request after its first attempt (default 5). */
  retries?: number;
  /** Delay before the first retry, doubled at each further one (default 1000 ms). */
  minRetryDelayMs?: number;
  /** Per attempt (default 30 s). */
  timeoutMs?: number;
  /** Told about each retry, for the progress output. */
  onRetry?: (message: string) => void;
  signal?: AbortSignal;
  /**
   * The rules of the server's own outgoing requests (src/net/outbound-fetch.ts), for a source the server runs: its
   * addresses checked against OUTBOUND_ALLOW_PRIVATE, and each answer at most `maxBytes`. The CLI's `import` is the
   * operator's own request and goes anywhere.
   */
  outbound?: { allowPrivate: PrivateAddresses; maxBytes: number };
}

/** A request that failed; `retryable` failures were retried until the budget ran out. */
export class SourceError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** A failure that stops the import before anything is written: no such site or namespace, refused credentials. */
export class SourceUnavailable extends Error {}

type Query = Record<string, string | number>;

export interface ListedPage {
  page: number;
  items: unknown[];
  total: number | null;
  totalPages: number | null;
}

export type PageResult = ListedPage | { page: number; error: SourceError };

const MAX_RETRY_AFTER_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Root {
  base: URL;
  /** `?rest_route=/…` roots (WordPress without pretty permalinks) put the route in the query. */
  queryForm: boolean;
}

function readRoot(root: string): { root: Root; user?: string; password?: string } {
  let url: URL;
  try {
    url = new URL(root);
  } catch {
    throw new SourceUnavailable(`"${root}" is not a URL; give the site's REST root, e.g. https://example.org/wp-json/`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SourceUnavailable(`the REST root must be an http(s) URL, got "${url.protocol}"`);
  // fetch refuses URLs with credentials in them: they travel as HTTP Basic instead, and never appear in messages.
  const user = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  url.username = '';
  url.password = '';
  url.hash = '';
  const queryForm = url.searchParams.has('rest_route');
  if (!queryForm) {
    url.search = '';
    if (!url.pathname.endsWith('/')) url.pathname += '/';
  }
  return { root: { base: url, queryForm }, user, password };
}

/** How the source is remembered in import origins: the REST root without credentials, query or trailing slash. */
function sourceKeyOf(root: Root): string {
  if (root.queryForm) return `${root.base.origin}${root.base.pathname}?rest_route=`;
  return `${root.base.origin}${root.base.pathname.replace(/\/+$/, '')}`;
}

function encodeQuery(query: Query): string {
  return Object.entries(query)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join('&');
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}

/** An answer with its body read. */
interface HttpAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

/** `HTTP 400 rest_invalid_param: Invalid parameter(s): status` from a WordPress error body, else the status line. */
function describeFailure(answer: HttpAnswer): string {
  try {
    const body = JSON.parse(answer.text) as { code?: unknown; message?: unknown };
    if (typeof body.code === 'string')
      return `HTTP ${answer.status} ${body.code}${typeof body.message === 'string' ? `: ${body.message}` : ''}`;
  } catch {
    // not JSON: the status says enough
  }
  return `HTTP ${answer.status} ${answer.statusText}`.trim();
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError') return 'timed out';
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

function countFrom(body: RemoteRecord, key: string, headers: Headers, headerNames: string[]): number | null {
  const candidates = [body[key], ...headerNames.map((name) => headers.get(name))];
  for (const value of candidates) {
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number === 'number' && Number.isInteger(number) && number >= 0) return number;
  }
  return null;
}

export class SourceClient {
  private constructor(
    private readonly root: Root,
    readonly namespace: string,
    private readonly authorization: string | undefined,
    private readonly options: SourceOptions,
  ) {}

  /** The identity origins are recorded under: one per site, whichever namespace answered. */
  get key(): string {
    return sourceKeyOf(this.root);
  }

  get authenticated(): boolean {
    return this.authorization !== undefined;
  }

  /** Finds the namespace the site answers (or checks the one given); refuses a site that answers neither. */
  static async connect(options: SourceOptions): Promise<SourceClient> {
    const { root, ...fromUrl } = readRoot(options.root);
    const user = options.user ?? fromUrl.user;
    const password = options.password ?? fromUrl.password;
    if ((user === undefined) !== (password === undefined))
      throw new SourceUnavailable('give both a user and a password, or neither');
    const authorization =
      user !== undefined ? `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` : undefined;
    const candidates = options.namespace ? [options.namespace.replace(/^\/+|\/+$/g, '')] : [...KNOWN_NAMESPACES];
    const discovery = { ...options, retries: Math.min(options.retries ?? 5, 2) };
    for (const namespace of candidates) {
      const client = new SourceClient(root, namespace, authorization, discovery);
      if (!(await client.answersNamespace())) continue;
      if (authorization) await client.checkCredentials();
      return new SourceClient(root, namespace, authorization, options);
    }
    throw new SourceUnavailable(
      `${sourceKeyOf(root)} does not answer ${candidates.join(' or ')}: is it the REST root of a site running The Events Calendar (e.g. https://example.org/wp-json/)?`,
    );
  }

  private async answersNamespace(): Promise<boolean> {
    try {
      // A WordPress namespace index; this service answers its own name on the `tribe/events/v1` alias too.
      const { body } = await this.get('');
      const index = body as { namespace?: unknown; routes?: unknown } | null;
      return typeof index?.namespace === 'string' && typeof index.routes === 'object' && index.routes !== null;
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      if (error.status === 401 || error.status === 403) {
        throw new SourceUnavailable(
          this.authorization
            ? `the site refused the credentials (${error.message})`
            : `the site refused an anonymous reader (${error.message})`,
        );
      }
      if (error.status !== null && error.status >= 400 && error.status < 500) return false;
      throw new SourceUnavailable(`cannot reach ${this.key}: ${error.message}`);
    }
  }

  /**
   * The namespace index is public: whether the credentials work, and for a user who may list drafts, shows on a list
   * asked for every status. (WordPress accepts application passwords over HTTPS only, unless configured otherwise.)
   */
  private async checkCredentials(): Promise<void> {
    try {
      await this.get('/events', { per_page: 1, status: EVERY_STATUS });
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      if (error.status === 401 || error.status === 403)
        throw new SourceUnavailable(`the site refused the credentials (${error.message})`);
      if (error.status === 400)
        throw new SourceUnavailable(
          `the site did not take the credentials as a user who may list drafts (${error.message})`,
        );
      throw new SourceUnavailable(`cannot reach ${this.key}: ${error.message}`);
    }
  }

  url(path: string, query: Query = {}): URL {
    const route = `/${this.namespace}${path}`;
    const url = new URL(this.root.base);
    if (this.root.queryForm) {
      url.searchParams.set('rest_route', route);
      for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
      return url;
    }
    const relative = new URL(route.slice(1), url);
    relative.search = encodeQuery(query);
    return relative;
  }

  /** A GET answered with JSON, retried as the module comment says. */
  async get(path: string, query: Query = {}): Promise<{ body: unknown; headers: Headers }> {
    const url = this.url(path, query);
    const shown = `GET ${url.pathname}${url.search}`;
    const { retries = 5, minRetryDelayMs = 1000, timeoutMs = 30_000, signal } = this.options;
    return pRetry(() => this.attempt(url, shown, timeoutMs), {
      retries,
      minTimeout: minRetryDelayMs,
      factor: 2,
      maxTimeout: 30_000,
      signal,
      shouldRetry: ({ error }) => error instanceof SourceError && error.retryable,
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        if (!(error instanceof SourceError) || !error.retryable || retriesLeft === 0) return;
        this.options.onRetry?.(`${error.message}; retrying (attempt ${attemptNumber + 1} of ${retries + 1})`);
        // Backoff follows; a server that says how long to wait is waited for first.
        if (error.retryAfterMs) await sleep(error.retryAfterMs);
      },
    });
  }

  private async attempt(url: URL, shown: string, timeoutMs: number): Promise<{ body: unknown; headers: Headers }> {
    const answer = await this.send(url, shown, timeoutMs);
    if (answer.status < 200 || answer.status > 299) {
      const retryable = answer.status === 429 || answer.status >= 500;
      throw new SourceError(
        `${shown}: ${describeFailure(answer)}`,
        answer.status,
        retryable,
        retryable ? retryAfterMs(answer.headers.get('retry-after')) : undefined,
      );
    }
    try {
      return { body: JSON.parse(answer.text), headers: answer.headers };
    } catch {
      throw new SourceError(
        `${shown}: the answer is not JSON (${answer.text.slice(0, 60).replace(/\s+/g, ' ')}…)`,
        answer.status,
        false,
      );
    }
  }

  /** One GET, its body read whole: with fetch, or within the server's outgoing rules when it has them. */
  private async send(url: URL, shown: string, timeoutMs: number): Promise<HttpAnswer> {
    const headers = {
      accept: 'application/json',
      ...(this.authorization ? { authorization: this.authorization } : {}),
    };
    const { outbound } = this.options;
    if (outbound) {
      try {
        return await fetchOutbound(url.href, { ...outbound, timeoutMs, headers }, async (answer) => ({
          status: answer.status,
          statusText: '',
          headers: answer.headers,
          text: new TextDecoder().decode(await answer.body()),
        }));
      } catch (error) {
        if (!(error instanceof OutboundRefusal)) throw error;
        throw new SourceError(`${shown}: ${error.message}`, null, error.transient);
      }
    }
    const signals = [AbortSignal.timeout(timeoutMs), ...(this.options.signal ? [this.options.signal] : [])];
    let response: Response;
    try {
      response = await fetch(url, { headers, signal: AbortSignal.any(signals) });
    } catch (error) {
      throw new SourceError(`${shown}: ${networkReason(error)}`, null, !this.options.signal?.aborted);
    }
    try {
      const text = await response.text();
      return { status: response.status, statusText: response.statusText, headers: response.headers, text };
    } catch (error) {
      throw new SourceError(`${shown}: ${networkReason(error)}`, null, true);
    }
  }

  /**
   * Every page of a list, fetching the next page while the caller works on the current one. The number of pages is
   * read from `total_pages` (or the X-WP-TotalPages / X-TEC-TotalPages headers); without it, a short page ends the
   * list. A page that fails is reported and, when the number of pages is known, the next one is tried.
   */
  async *pages(path: string, listKey: string, query: Query, perPage: number): AsyncGenerator<PageResult> {
    let totalPages: number | null = null;
    const fetchPage = (page: number): Promise<PageResult> =>
      this.get(path, { ...query, per_page: perPage, page }).then(
        ({ body, headers }) => readPage(body, headers, listKey, page),
        // Never a rejection: the next page is fetched ahead, and nobody may be waiting for it when it fails.
        (error: unknown) => ({
          page,
          error:
            error instanceof SourceError
              ? error
              : new SourceError(String((error as Error)?.message ?? error), null, false),
        }),
      );
    let next = fetchPage(1);
    for (let page = 1; ; page++) {
      const result = await next;
      if ('error' in result) {
        // Past the last page when the count was not known: TEC answers 404 there.
        if (page > 1 && totalPages === null && result.error.status === 404) return;
      } else {
        totalPages = result.totalPages ?? totalPages;
      }
      const more =
        'error' in result
          ? totalPages !== null && page < totalPages
          : totalPages !== null
            ? page < totalPages
            : result.items.length >= perPage;
      if (more) next = fetchPage(page + 1);
      yield result;
      if (!more) return;
    }
  }

  /** One record by its route (`/events/46`), or why the source no longer answers it (a 4xx other than 429). */
  async getOne(path: string): Promise<{ record: RemoteRecord } | { missing: string }> {
    try {
      const { body } = await this.get(path);
      return { record: asRecord(body) };
    } catch (error) {
      if (error instanceof SourceError && error.status !== null && error.status >= 400 && error.status < 500)
        return { missing: error.message };
      throw error;
    }
  }
}

function readPage(body: unknown, headers: Headers, listKey: string, page: number): PageResult {
  const envelope = body && typeof body === 'object' && !Array.isArray(body) ? (body as RemoteRecord) : {};
  // WordPress core lists (and some proxies) answer a bare array.
  const items = Array.isArray(body) ? body : envelope[listKey];
  if (!Array.isArray(items))
    return { page, error: new SourceError(`page ${page} has no "${listKey}" list`, null, false) };
  return {
    page,
    items,
    total: countFrom(envelope, 'total', headers, ['x-wp-total', 'x-tec-total']),
    totalPages: countFrom(envelope, 'total_pages', headers, ['x-wp-totalpages', 'x-tec-totalpages']),
  };
}
