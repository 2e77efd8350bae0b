import { htmlSafeJson } from '../content/html.js';
import type { RestReply } from './route.js';
import type { RestUrls } from '../read/urls.js';

/** `a,b.c,b.d` → `{a: true, b: {c: true, d: true}}`; a sub-field of a field already kept whole is ignored. */
type FieldTree = { [key: string]: true | FieldTree };

function fieldTree(fields: string[]): FieldTree {
  const tree: FieldTree = {};
  for (const field of fields) {
    const parts = field.split('.');
    const last = parts.pop()!;
    let node: FieldTree | true = tree;
    for (const part of parts) {
      if (node === true) break;
      node = node[part] === true ? true : (node[part] ??= {});
    }
    if (node !== true) node[last] = true;
  }
  return tree;
}

/**
 * WordPress's `_fields`: keep only the named keys, in the record's own order; dotted names reach into objects. A
 * list is filtered item by item (WordPress does this for a bare list; we also do it for a list inside an object, so
 * `_fields=events.id,total` works on the events envelope).
 */
function pickFields(body: unknown, tree: FieldTree): unknown {
  if (Array.isArray(body)) return body.map((item) => pickFields(item, tree));
  if (!body || typeof body !== 'object') return body;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const rule = tree[key];
    if (rule === undefined) continue;
    result[key] = rule === true ? value : pickFields(value, rule);
  }
  return result;
}

function fieldsParam(query: Record<string, unknown>): string[] | null {
  const raw = query._fields;
  if (raw === undefined) return null;
  const list = Array.isArray(raw) ? raw.map(String) : String(raw).split(',');
  return list.map((field) => field.trim()).filter((field) => field !== '');
}

/**
 * Applies `_fields` and `_envelope`, and the headers WordPress REST clients expect; a text reply is sent as it is.
 * ETag, Cache-Control, 304, HEAD, compression and CORS are the HTTP layer's (src/http/representation.ts, cors.ts).
 */
export function finishResponse(query: Record<string, unknown>, reply: RestReply, urls: RestUrls): Response {
  const status = reply.status ?? 200;
  const fields = fieldsParam(query);
  let body = reply.body;
  // As in WordPress: a bare list has each item filtered, an object (a record or an envelope) its own keys.
  if (fields && status < 400) body = pickFields(body, fieldTree(fields));
  const headers: Record<string, string> = {
    'Content-Type': reply.contentType ?? 'application/json; charset=UTF-8',
    Link: `<${urls.root}>; rel="https://api.w.org/"`,
    ...reply.headers,
  };
  if (reply.contentType !== undefined) return new Response(String(body), { status, headers });
  if ('_envelope' in query) {
    return new Response(htmlSafeJson({ body, status, headers: reply.headers ?? {} }), { status: 200, headers });
  }
  return new Response(htmlSafeJson(body), { status, headers });
}
