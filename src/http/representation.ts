import { encode, negotiateCoding, type Bytes, type Coding, type ContentCoding } from './content-coding.js';
import { codedEntityTag, entityTagOf, matchedEntityTag, tagsOfEveryCoding } from './entity-tag.js';
import { toResponse, type PlainAnswer, type RequestHead } from './request-head.js';
import { addVary, withMutableHeaders } from './vary.js';

/** Bodies smaller than this are sent as they are: compressing them saves less than its headers and time cost. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Headers a representation decides itself, whatever the answer it was made from carried. */
const DECIDED_HERE = new Set(['etag', 'cache-control', 'content-length', 'content-encoding', 'vary']);

/** Answers that are not one finished body: event streams and incremental (multipart) delivery are passed through. */
const STREAMED = /^(text\/event-stream|multipart\/)/i;

/** Whether the request carries credentials: its answer is for this client alone. */
export const isCredentialed = (request: RequestHead) =>
  request.headers.has('authorization') || request.headers.has('cookie');

/** Anyone's cache may keep an anonymous answer, a client's own cache a credentialed one; both ask again (by ETag) before reuse. */
const cacheControlFor = (request: RequestHead) => (isCredentialed(request) ? 'private, no-cache' : 'public, no-cache');

/**
 * A successful answer as bytes (a GET's, or a POST's to be compressed): its strong ETag (a hash of the body unless the route chose one), its Cache-Control,
 * its compressed copies (computed on first use and kept with it, so a remembered answer is compressed once per
 * coding) and the 304 answer to a request that already holds it.
 */
export class Representation {
  private readonly encoded = new Map<ContentCoding, Promise<Bytes>>();

  private constructor(
    private readonly headers: readonly [string, string][],
    private readonly body: Uint8Array,
    private readonly etag: string,
  ) {}

  /** The representation of `response`, or null when it is not a finished successful body (errors, streams, encoded). */
  static async of(
    response: Response,
    keepHeader: (name: string) => boolean = () => true,
  ): Promise<Representation | null> {
    const type = response.headers.get('content-type') ?? '';
    if (response.status !== 200 || !response.body || STREAMED.test(type) || response.headers.has('content-encoding'))
      return null;
    const body = new Uint8Array(await response.arrayBuffer());
    const etag = strongTag(response.headers.get('etag')) ?? entityTagOf(body);
    const vary = response.headers.get('vary');
    const headers = [...response.headers].filter(([name]) => !DECIDED_HERE.has(name) && keepHeader(name));
    return new Representation(vary ? [...headers, ['vary', vary]] : headers, body, etag);
  }

  /** Bytes held, with room for the compressed copies (JSON compresses to well under half). */
  get size(): number {
    return this.body.byteLength * (this.body.byteLength >= COMPRESSION_THRESHOLD_BYTES ? 2 : 1);
  }

  /**
   * The answer to `request`: 304 when it holds this representation (in any coding), else the body in its best coding.
   * Without `validators` (the answer to a POST, which no cache keeps) it is only compressed.
   */
  async respond(request: Request, options: { validators?: boolean } = {}): Promise<Response> {
    return toResponse(await this.answer(request, options));
  }

  /** `respond`'s answer as plain data, for a request read straight from node:http (src/http/cached-answers.ts). */
  async answer(request: RequestHead, { validators = true } = {}): Promise<PlainAnswer> {
    const coding = this.codingFor(request);
    const etag = coding === 'identity' ? this.etag : codedEntityTag(this.etag, coding);
    const headers = new Map(this.headers);
    if (validators) {
      headers.set('etag', etag);
      headers.set('cache-control', cacheControlFor(request));
    }
    addVary(headers, 'Accept-Encoding');
    const held = validators ? this.heldBy(request, etag) : null;
    if (held) {
      headers.set('etag', held);
      headers.delete('content-type');
      return { status: 304, headers, body: null };
    }
    const body = coding === 'identity' ? this.body : await this.encodedAs(coding);
    if (coding !== 'identity') headers.set('content-encoding', coding);
    headers.set('content-length', String(body.byteLength));
    return { status: 200, headers, body };
  }

  /** The coding the request prefers among ours; identity for a small body, or when it accepts none of ours. */
  private codingFor(request: RequestHead): Coding {
    if (this.body.byteLength < COMPRESSION_THRESHOLD_BYTES) return 'identity';
    return negotiateCoding(request) ?? 'identity';
  }

  /**
   * The tag the request's copy has when it is current (RFC 9110 §13.2.2: If-None-Match, else If-Modified-Since).
   * A copy in another coding is the same content: its 304 names the tag the client sent, so that a cache updates the
   * copy it holds.
   */
  private heldBy(request: RequestHead, negotiated: string): string | null {
    const ifNoneMatch = request.headers.get('if-none-match');
    if (ifNoneMatch !== null) {
      return matchedEntityTag(ifNoneMatch, [negotiated, ...tagsOfEveryCoding(this.etag)]);
    }
    const since = Date.parse(request.headers.get('if-modified-since') ?? '');
    const modified = Date.parse(this.headers.find(([name]) => name === 'last-modified')?.[1] ?? '');
    return !Number.isNaN(since) && !Number.isNaN(modified) && modified <= since ? negotiated : null;
  }

  private encodedAs(coding: ContentCoding): Promise<Bytes> {
    let bytes = this.encoded.get(coding);
    if (!bytes) {
      bytes = encode(coding, this.body, 'dynamic');
      this.encoded.set(coding, bytes);
    }
    return bytes;
  }
}

/** A route's own ETag, if it is a strong one (a weak tag cannot name the bytes of each coding). */
const strongTag = (tag: string | null) => (tag && /^"[^"]*"$/.test(tag) ? tag : null);

/**
 * Finishes an answer to a read or write of the API: a successful GET as its representation (ETag, Cache-Control,
 * compression, 304), another success (GraphQL over POST) compressed; an error is never stored by any cache.
 */
export async function finishAnswer(request: Request, response: Response): Promise<Response> {
  const representation = await Representation.of(response);
  if (representation) return representation.respond(request, { validators: request.method === 'GET' });
  if (response.status < 400) return response;
  const finished = withMutableHeaders(response);
  finished.headers.set('cache-control', 'no-store');
  return finished;
}
