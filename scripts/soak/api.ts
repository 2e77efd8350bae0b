/** A small HTTP client for the running service: REST under the calendar namespace and GraphQL, as one user. */

export const REST_BASE = '/wp-json/calendar/events/v1';
const REQUEST_TIMEOUT_MS = 30_000;

export interface Reply {
  status: number;
  body: any;
}

export function basicAuthorization(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

export class Api {
  constructor(
    readonly base: string,
    private readonly authorization: string | null,
  ) {}

  /** `route` is relative to the REST namespace (`/events/12`); a body is sent as JSON. */
  async rest(method: string, route: string, body?: unknown): Promise<Reply> {
    return this.send(method, `${REST_BASE}${route}`, body);
  }

  /** Answers `status` 200 only when the operation succeeded without GraphQL errors (else 200 becomes 500). */
  async graphql(query: string, variables: Record<string, unknown> = {}): Promise<Reply> {
    const reply = await this.send('POST', '/graphql', { query, variables });
    const failed = reply.status === 200 && (reply.body?.errors?.length ?? 0) > 0;
    return { status: failed ? 500 : reply.status, body: failed ? reply.body.errors : reply.body?.data };
  }

  async get(path: string): Promise<Reply> {
    return this.send('GET', path);
  }

  private async send(method: string, path: string, body?: unknown): Promise<Reply> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.authorization) headers.authorization = this.authorization;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text for the error report
    }
    return { status: response.status, body: parsed };
  }
}
