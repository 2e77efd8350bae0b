import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { imageBytes, MIME_TYPES, type ImageKind } from './images.js';

// A local web server that answers what image URLs can answer, so tests of images given by URL run offline. Test
// servers may fetch from 127.0.0.1 (IMAGE_FETCH_ALLOW_PRIVATE in test/support/server.ts); the others refuse it.
//
//   /<any path>.<png|jpg|jpeg|gif|webp>?w=&h=   a real image of that size (any letter case; any other query
//                                     makes the URL unique)
//   /picture?type=png&w=&h=           the same without an extension in the path
//   /text.png                         plain text, labelled image/png
//   /drawing.svg                      an SVG drawing
//   /slow.png                         headers never come
//   /huge.png?bytes=                  a PNG signature and then that many bytes, streamed without a length
//   /declared-huge.png?bytes=         a Content-Length of that many bytes, and then nothing
//   /status/<code>                    that status, no body
//   /redirect?to=<url>                302 to that URL
//   /redirects?count=<n>&to=<url>     a chain of n redirects ending at that URL

export interface ImageServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** A URL of a real image on this server, unique per call (so that no earlier test's media record is reused). */
  image(kind: ImageKind, width: number, height: number): string;
  /** `origin` + path: `at('/p/photo.JPG')`. */
  at(path: string): string;
  /** Requests the server received for this path (query left out). */
  hits(path: string): number;
  close(): Promise<void>;
}

let unique = 0;

export async function startImageServer(): Promise<ImageServer> {
  const hits = new Map<string, number>();
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fixture');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    answer(url, request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    image: (kind, width, height) => `${origin}/image.${kind}?w=${width}&h=${height}&n=${process.pid}-${++unique}`,
    at: (path) => `${origin}${path}`,
    hits: (path) => hits.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(url: URL, _request: IncomingMessage, response: ServerResponse): void {
  const number = (name: string, fallback: number) => Number(url.searchParams.get(name) ?? fallback);
  const extension = /\.(png|jpe?g|gif|webp)$/i.exec(url.pathname)?.[1]?.toLowerCase().replace('jpeg', 'jpg');
  const image = SPECIAL.has(url.pathname)
    ? null
    : (extension ?? (url.pathname === '/picture' ? url.searchParams.get('type') : null));
  if (image && image in MIME_TYPES) {
    const kind = image as ImageKind;
    return send(response, 200, MIME_TYPES[kind], imageBytes(kind, number('w', 1), number('h', 1)));
  }
  const status = /^\/status\/(\d{3})$/.exec(url.pathname)?.[1];
  if (status) return send(response, Number(status), 'text/plain', Buffer.alloc(0));
  switch (url.pathname) {
    case '/text.png':
      return send(response, 200, 'image/png', Buffer.from('This is not an image, whatever the header says.\n'));
    case '/drawing.svg':
      return send(
        response,
        200,
        'image/svg+xml',
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"><script>alert(1)</script></svg>'),
      );
    case '/slow.png':
      return; // never answers; the fetch must give up
    case '/huge.png':
      return streamHuge(response, number('bytes', 1_000_000));
    case '/declared-huge.png':
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': String(number('bytes', 1_000_000)) });
      response.flushHeaders();
      return;
    case '/redirect':
      response.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
      return void response.end();
    case '/redirects': {
      const count = number('count', 1);
      const to = url.searchParams.get('to') ?? '/';
      response.writeHead(302, {
        location: count <= 1 ? to : `/redirects?count=${count - 1}&to=${encodeURIComponent(to)}`,
      });
      return void response.end();
    }
    default:
      return send(response, 404, 'text/plain', Buffer.from('not found'));
  }
}

const SPECIAL = new Set(['/text.png', '/slow.png', '/huge.png', '/declared-huge.png']);

function send(response: ServerResponse, status: number, contentType: string, body: Buffer): void {
  response.writeHead(status, { 'content-type': contentType, 'content-length': String(body.length) });
  response.end(body);
}

/** A PNG signature followed by zeros, in 16 KiB chunks, with no Content-Length: only counting tells the size. */
function streamHuge(response: ServerResponse, bytes: number): void {
  response.writeHead(200, { 'content-type': 'image/png' });
  response.write(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
  let left = bytes;
  const more = () => {
    while (left > 0) {
      const size = Math.min(left, 16_384);
      left -= size;
      if (!response.write(Buffer.alloc(size))) return void response.once('drain', more);
    }
    response.end();
  };
  more();
}
