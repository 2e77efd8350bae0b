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
