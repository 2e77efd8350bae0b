import { type IncomingMessage, request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as sent: still compressed when the answer has a Content-Encoding. */
  body: Buffer;
}

/** A request over node:http, which (unlike fetch) leaves the body as sent and sends only the headers given. */
export function rawRequest(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    request(url, { method, headers }, (response) => collectResponse(response).then(resolve, reject))
      .on('error', reject)
      .end();
  });
}

/** A node:http response read whole. */
export function collectResponse(response: IncomingMessage): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () =>
      resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
    );
    response.on('error', reject);
  });
}

/** The response without its `date` header, which differs between two answers that are otherwise the same. */
export function withoutDate({ headers: { date: _date, ...headers }, ...rest }: RawResponse): RawResponse {
  return { ...rest, headers };
}
