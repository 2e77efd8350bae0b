import type { RestReply } from './route.js';
import type { RestUrls } from './urls.js';

const EXPOSED_HEADERS = 'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages';
const ALLOWED_HEADERS = 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override';

/** WordPress's `_fields`: keep only the named top-level keys (dotted names reach into objects). */
function pickFields(body: unknown, fields: string[]): unknown {
  if (Array.isArray(body)) return body.map((item) => pickFields(item, fields));
  if (!body || typeof body !== 'object') return body;
  const source = body as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const field of fields) {
    const [head, ...rest] = field.split('.');
    if (!head || !(head in source)) continue;
    if (rest.length === 0) result[head] = source[head];
    else {
      const nested = pickFields(source[head], [rest.join('.')]);
      result[head] = { ...((result[head] as object | undefined) ?? {}), ...(nested as object) };
    }
  }
  return result;
}

function fieldsParam(query: Record<string, unknown>): string[] | null {
  const raw = query._fields;
  if (raw === undefined) return null;
  const list = Array.isArray(raw) ? raw.map(String) : String(raw).split(',');
  return list.map((field) => field.trim()).filter((field) => field !== '');
}

/** Applies `_fields` and `_envelope`, and the headers WordPress REST clients expect. */
export function finishResponse(request: Request, query: Record<string, unknown>, reply: RestReply, urls: RestUrls): Response {
  const status = reply.status ?? 200;
  const fields = fieldsParam(query);
  let body = reply.body;
  // As in WordPress: a bare list has each item filtered, an object (a record or an envelope) its own keys.
  if (fields && status < 400) body = pickFields(body, fields);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=UTF-8',
    'X-Content-Type-Options': 'nosniff',
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    Link: `<${urls.root}>; rel="https://api.w.org/"`,
    Vary: 'Origin',
    ...reply.headers,
  };
  if ('_envelope' in query) {
    return new Response(JSON.stringify({ body, status, headers: reply.headers ?? {} }), { status: 200, headers });
  }
  return new Response(request.method === 'HEAD' ? null : JSON.stringify(body), { status, headers });
}
