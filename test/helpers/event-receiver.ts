// A webhook receiver for the event webhook suites and benchmarks: a real node:http server on 127.0.0.1 that
// keeps every call (headers, body, when it arrived) and answers with what the test says.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedEvent {
  headers: IncomingHttpHeaders;
  raw: string;
  body: { type: string; id: string; timestamp: string; data: Record<string, unknown> };
  receivedAt: number;
}

/**
 * How the receiver answers one call: a status, after a delay (ms) when given, with a body of a type when given
 * (else text/plain `ok`) and a Location header when given (a redirect); `hang` never answers.
 */
export type Answer =
  { status: number; delayMs?: number; contentType?: string; body?: string; location?: string } | 'hang';

export interface EventReceiver {
  url: string;
  received: ReceivedEvent[];
  /** Calls whose answer has not been sent yet, and the most there were at once per webhook-id. */
  inFlight: Map<string, number>;
  maxConcurrentPerId: Map<string, number>;
  /** Resolves once `predicate` holds for the calls received so far (checked on each call). */
  until(predicate: (received: ReceivedEvent[]) => boolean): Promise<ReceivedEvent[]>;
  close(): Promise<void>;
}

export async function eventReceiver(
  answer: (event: ReceivedEvent, index: number) => Answer = () => ({ status: 200 }),
): Promise<EventReceiver> {
  const received: ReceivedEvent[] = [];
  const inFlight = new Map<string, number>();
  const maxConcurrentPerId = new Map<string, number>();
  const waiters = new Set<() => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: ReceivedEvent['body'];
      try {
        body = JSON.parse(raw) as ReceivedEvent['body'];
      } catch {
        body = { type: 'unparseable', id: '', timestamp: '', data: {} };
      }
      const event: ReceivedEvent = { headers: request.headers, raw, body, receivedAt: Date.now() };
      const id = String(request.headers['webhook-id']);
      const now = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, now);
      maxConcurrentPerId.set(id, Math.max(now, maxConcurrentPerId.get(id) ?? 0));
      const reply = answer(event, received.length);
      received.push(event);
      for (const wake of waiters) wake();
      if (reply === 'hang') return;
      const send = () => {
        inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
        response
          .writeHead(reply.status, {
            'content-type': reply.contentType ?? 'text/plain',
            ...(reply.location && { location: reply.location }),
          })
          .end(reply.body ?? 'ok');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    inFlight,
    maxConcurrentPerId,
    until: (predicate) =>
      new Promise((resolve) => {
        const check = () => {
          if (!predicate(received)) return;
          waiters.delete(check);
          resolve(received);
        };
        waiters.add(check);
        check();
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The signatures of `webhook-signature` that `secret` verifies (Standard Webhooks, computed here). */
export function verifiedSignatures(event: ReceivedEvent, secret: string): number {
  const id = String(event.headers['webhook-id']);
  const timestamp = String(event.headers['webhook-timestamp']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${event.raw}`).digest('base64');
  return String(event.headers['webhook-signature'])
    .split(' ')
    .filter((signature) => signature === `v1,${expected}`).length;
}
