import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import Negotiator from 'negotiator';
import type { RequestHead } from './request-head.js';

export type Bytes = Buffer<ArrayBuffer>;
// zlib's typings allow a SharedArrayBuffer under its output; it never is one.
const asBytes = (buffer: Buffer) => buffer as Bytes;

/** How hard to compress: `dynamic` for answers computed per request, `static` for files compressed once. */
export type Effort = 'dynamic' | 'static';

// Brotli quality 5 compresses JSON about as well as gzip 9 at a fraction of the time; static files (GraphiQL's 5 MB
// script: 0.25 s at quality 6, 3% larger than at 9, 13% than at 11) are compressed once, so they get a little more.
const BROTLI_QUALITY: Record<Effort, number> = { dynamic: 5, static: 6 };
const GZIP_LEVEL: Record<Effort, number> = { dynamic: 6, static: 9 };

const compressors = {
  br: async (bytes: Uint8Array, effort: Effort) =>
    asBytes(
      await promisify(brotliCompress)(bytes, {
        params: {
          [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY[effort],
          [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        },
      }),
    ),
  gzip: async (bytes: Uint8Array, effort: Effort) =>
    asBytes(await promisify(gzip)(bytes, { level: GZIP_LEVEL[effort] })),
};

export type ContentCoding = keyof typeof compressors;
export type Coding = ContentCoding | 'identity';
export const CONTENT_CODINGS = Object.keys(compressors) as ContentCoding[];
/** The server's preference when the client accepts several equally. */
const CODINGS: readonly Coding[] = ['br', 'gzip', 'identity'];

/** The coding to answer `request` with (Accept-Encoding, q=0 refusals included), or null when it accepts none of ours. */
export function negotiateCoding(request: RequestHead): Coding | null {
  const headers = { 'accept-encoding': request.headers.get('accept-encoding') ?? undefined };
  return (
    (new Negotiator({ headers }).encoding([...CODINGS], { preferred: [...CODINGS] }) as Coding | undefined) ?? null
  );
}

/** `bytes` compressed with `coding`, off the main thread. */
export function encode(coding: ContentCoding, bytes: Uint8Array, effort: Effort): Promise<Bytes> {
  return compressors[coding](bytes, effort);
}
