import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { ServiceMetrics } from './metrics.js';

/** A scrape's answer, the same on the service's port and on METRICS_PORT. */
export interface ScrapeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `authorization` is `Bearer <token>`, compared in constant time. */
function bears(authorization: string | null | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

/** Answers a scrape: the metrics in Prometheus's text format, or 401 without the token when one is set. */
export async function answerScrape(
  metrics: ServiceMetrics,
  token: string | undefined,
  authorization: string | null | undefined,
): Promise<ScrapeAnswer> {
  if (token !== undefined && !bears(authorization, token))
    return {
      status: 401,
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'www-authenticate': 'Bearer realm="metrics"',
        'cache-control': 'no-store',
      },
      body: 'Send the METRICS_TOKEN as Authorization: Bearer <token>.\n',
    };
  return {
    status: 200,
    headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' },
    body: await metrics.text(),
  };
}

/** METRICS_PORT's listener: `GET /metrics` (and HEAD) and nothing else. */
export function listenForScrapes(
  metrics: ServiceMetrics,
  token: string | undefined,
  port: number,
  host: string,
  path: string,
): Promise<Server> {
  const server = createServer((req, res) => {
    const pathname = (req.url ?? '').split('?')[0];
    if (pathname !== path || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`Only GET ${path} is served here.\n`);
      return;
    }
    answerScrape(metrics, token, req.headers.authorization).then(
      ({ status, headers, body }) => res.writeHead(status, headers).end(req.method === 'HEAD' ? undefined : body),
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
