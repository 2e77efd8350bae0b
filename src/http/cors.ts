import { type CorsOrigins, wellFormedOrigin } from '../config.js';
import type { PlainAnswer, RequestHead } from './request-head.js';
import { addVary, withMutableHeaders } from './representation.js';

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
