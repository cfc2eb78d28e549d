import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** A request slower than this is logged at info whatever its status. */
const SLOW_MS = 1_000;

/**
 * One line per request, as it is answered ("request completed", with the method, URL, status and time), where
 * Fastify writes two. Answers that went wrong (4xx, 5xx) or slowly are logged at info; the rest at debug
 * (`DEVDATA_LOG_LEVEL=debug`): at the server's speed a line for every request costs about as much CPU as
 * answering it (bench/RESULTS.md).
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const responseTime = reply.elapsedTime;
    const line = {
      req: { method: request.method, url: request.url, remoteAddress: request.ip },
      res: { statusCode: reply.statusCode },
      responseTime,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else if (reply.statusCode >= 400 || responseTime >= SLOW_MS) reply.log.info(line, 'request completed');
    else reply.log.debug(line, 'request completed');
  }
}
