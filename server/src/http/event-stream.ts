import type { FastifyReply, FastifyRequest } from 'fastify';

/** An open Server-Sent Events answer. */
export interface EventStream {
  send(event: string, id: string, data: string): void;
  /** `callback` runs whenever the stream ends (see `end`). */
  onEnd(callback: () => void): void;
  /** Stops the heartbeat, runs the `onEnd` callbacks and ends the answer; also run when the client goes away. */
  end(): void;
}

/**
 * Takes the answer over from Fastify and opens it as a stream of Server-Sent Events, with a `: heartbeat`
 * comment every `heartbeatMs` to keep the connection open. HEAD (which Fastify adds to every GET) gets the
 * stream's head and nothing more: undefined then.
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  heartbeatMs: number,
): EventStream | undefined {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  if (request.method === 'HEAD') {
    raw.end();
    return undefined;
  }
  raw.write(': connected\n\n');
  const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), heartbeatMs);
  const onEnd: (() => void)[] = [];
  const end = () => {
    clearInterval(heartbeat);
    for (const callback of onEnd) callback();
    if (!raw.writableEnded) raw.end();
  };
  request.raw.on('close', end);
  raw.on('close', end);
  raw.on('error', end);
  return {
    send: (event, id, data) => raw.write(`event: ${event}\nid: ${id}\ndata: ${data}\n\n`),
    onEnd: (callback) => onEnd.push(callback),
    end,
  };
}
