import {
  codedEntityTag,
  encode,
  matchedEntityTag,
  negotiateCoding,
  tagsOfEveryCoding,
  type Bytes,
  type Coding,
} from './representation.js';

export interface StaticFileOptions {
  contentType: string;
  cacheControl: string;
  /** Names this content: it is the ETag (`-br`, `-gzip` added per coding), so it must change whenever the bytes do. */
  version: string;
  /** The bytes, asked for once, when first needed. */
  load: () => Promise<Bytes> | Bytes;
  headers?: Record<string, string>;
}

/**
 * A file served from memory, compressed with brotli or gzip as the request accepts. Each encoding is computed once,
 * on the first request that wants it, off the main thread; ETags (per coding, as for the API's answers in
 * src/http/representation.ts) let a browser revalidate with 304.
 */
export class StaticFile {
  private readonly encoded = new Map<Coding, Promise<Bytes>>();

  constructor(private readonly options: StaticFileOptions) {}

  async respond(request: Request): Promise<Response> {
    const encoding = negotiateCoding(request);
    if (!encoding) return new Response(null, { status: 406, headers: { vary: 'Accept-Encoding' } });
    const identityTag = `"${this.options.version}"`;
    const etag = encoding === 'identity' ? identityTag : codedEntityTag(identityTag, encoding);
    const validators = { etag, 'cache-control': this.options.cacheControl, vary: 'Accept-Encoding' };
    const ifNoneMatch = request.headers.get('if-none-match');
    const held = ifNoneMatch === null ? null : matchedEntityTag(ifNoneMatch, [etag, ...tagsOfEveryCoding(identityTag)]);
    if (held) return new Response(null, { status: 304, headers: { ...validators, etag: held } });
    const body = await this.bytes(encoding);
    const headers = {
      ...this.options.headers,
      ...validators,
      'content-type': this.options.contentType,
      'content-length': String(body.length),
      ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
    };
    return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
  }

  private bytes(encoding: Coding): Promise<Bytes> {
    let bytes = this.encoded.get(encoding);
    if (!bytes) {
      bytes =
        encoding === 'identity'
          ? Promise.resolve(this.options.load())
          : this.bytes('identity').then((identity) => encode(encoding, identity, 'static'));
      this.encoded.set(encoding, bytes);
    }
    return bytes;
  }
}
