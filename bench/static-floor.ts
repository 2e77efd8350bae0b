/**
 * The static floor of the benchmark: node:http answering every GET with the same bytes from memory (the service's
 * events-list body, captured once by the harness, with its content type). What any Node HTTP server costs per
 * response on this machine, with no database and no serializing: the ceiling of a response cache.
 *
 *   STATIC_BODY_FILE=body.json PORT=0 npx tsx bench/static-floor.ts
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface RunningStaticFloor {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Starts the static floor on `host:port` (0: a free port), answering `body` to every GET. */
export async function startStaticFloor(
  body: Buffer,
  options: { port?: number; host?: string } = {},
): Promise<RunningStaticFloor> {
  const headers = { 'Content-Type': 'application/json; charset=UTF-8', 'Content-Length': body.length };
  const server = createServer((request, response) => {
    if (request.method !== 'GET') response.writeHead(405).end();
    else response.writeHead(200, headers).end(body);
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => done());
  });
  return {
    server,
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeIdleConnections();
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const file = process.env.STATIC_BODY_FILE;
  if (!file) {
    console.error('static floor: STATIC_BODY_FILE must name the file whose bytes every GET answers');
    process.exit(1);
  }
  const floor = await startStaticFloor(readFileSync(file), {
    port: Number(process.env.PORT ?? 0),
    host: process.env.HOST ?? '127.0.0.1',
  });
  console.log(`Static floor server on ${floor.url}`);
  const stop = () => floor.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
