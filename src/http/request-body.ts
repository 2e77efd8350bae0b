import type { IncomingMessage } from 'node:http';

/**
 * The `length` bytes of body that `req` declared (Content-Length), read on node:http; null when they cannot be read
 * whole: more arrive than declared, the stream fails (the client hung up), or they are not all there within
 * `timeoutMs` (0: no limit). The bytes read are then put back into `req`, unread, for whoever reads it next.
 */
export function readDeclaredBody(req: IncomingMessage, length: number, timeoutMs: number): Promise<Buffer | null> {
  // A small body usually comes with the head: node:http has buffered all of it by the time the handler resumes (its
  // parser never buffers more than the declared length), and it is taken as it is, without listeners or a timer.
  if (req.readableLength === length) return Promise.resolve(req.read(length) as Buffer);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const settle = (body: Buffer | null) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onError);
      resolve(body);
    };
    const giveUp = () => {
      // Paused first: a flowing stream with no 'data' listener would drop what comes next.
      req.pause();
      settle(null);
      if (received > 0 && !req.destroyed) req.unshift(Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received > length) giveUp();
    };
    const onEnd = () => settle(Buffer.concat(chunks, received));
    const onError = () => settle(null);
    const timer = timeoutMs > 0 ? setTimeout(giveUp, timeoutMs) : undefined;
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onError);
  });
}

/**
 * Lets the Fetch Request that @whatwg-node/server builds for `req` carry `body`, already read off the stream: the
 * adapter takes a node request's `body` (what a framework's body parser leaves) instead of the spent stream.
 */
export function keepReadBody(req: IncomingMessage, body: Buffer): void {
  (req as IncomingMessage & { body?: Buffer }).body = body;
}
