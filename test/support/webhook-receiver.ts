import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook receiver on 127.0.0.1 for the tests: keeps every request (raw body bytes and headers) and answers as the
// test tells it (2xx, a status, or never, for a timeout: no answer at all, or the headers of a 200 without its body).

export interface Received {
  method: string;
  /** The request target: path and query. */
  path: string;
  body: Buffer;
  json: any;
  headers: Record<string, string | string[] | undefined>;
  /** What the receiver answered: a status, or 0 when it never did. */
  answered: number;
  /** Whether the connection was closed (by the sender, for an answer that never came). */
  closed: boolean;
  /** When it arrived (Date.now()). */
  at: number;
}

export type Answer = number | 'hang' | 'hang-after-headers';

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides each answer, in arrival order; 204 when left out. */
  answer: (request: Received, index: number) => Answer;
  /** The bodies answered 2xx, first time each delivery id was accepted. */
  accepted(): any[];
  /** The most requests that were waiting for an answer at once. */
  mostHanging: number;
  waitFor(condition: () => boolean, withinMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The signature the test expects, computed here, independently of the service's code. */
export function expectedSignature(body: Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export async function startReceiver(): Promise<Receiver> {
  const hanging = new Set<import('node:http').ServerResponse>();
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => 204,
    mostHanging: 0,
    accepted() {
      const seen = new Set<string>();
      return this.received
        .filter((r) => r.answered >= 200 && r.answered < 300)
        .map((r) => r.json)
        .filter((body) => !seen.has(body.id) && seen.add(body.id));
    },
    async waitFor(condition, withinMs = 15_000) {
      const deadline = Date.now() + withinMs;
      while (!condition()) {
        if (Date.now() > deadline)
          throw new Error(
            `receiver: condition not met within ${withinMs} ms; received ${JSON.stringify(this.received.map((r) => [r.json, r.answered]))}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      for (const response of hanging) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        json = undefined;
      }
      const received: Received = {
        method: request.method ?? '',
        path: request.url ?? '',
        body,
        json,
        headers: request.headers,
        answered: 0,
        closed: false,
        at: Date.now(),
      };
      const answer = receiver.answer(received, receiver.received.length);
      receiver.received.push(received);
      response.on('close', () => {
        received.closed = true;
        hanging.delete(response);
      });
      if (answer === 'hang' || answer === 'hang-after-headers') {
        hanging.add(response);
        receiver.mostHanging = Math.max(receiver.mostHanging, hanging.size);
        if (answer === 'hang-after-headers') response.writeHead(200, { 'content-length': '10' }).flushHeaders();
        return;
      }
      received.answered = answer;
      response.writeHead(answer).end();
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
