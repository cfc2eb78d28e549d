import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Fastify answers some requests before any route or hook runs: a path with malformed percent-encoding
 * (FST_ERR_BAD_URL, 400), a path parameter over the router's length limit (FST_ERR_MAX_PARAM_LENGTH, 414).
 * These answer in the interface's `{detail}` shape with Fastify's status, like every other client error.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const status =
    error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  void reply.code(status).type('application/json; charset=utf-8').send({ detail: error.message });
}

/** The details of the protocol-level refusals, by status. */
const CLIENT_ERROR_DETAIL: Record<number, string> = {
  400: 'Malformed HTTP request',
  408: 'The request did not arrive in time',
  431: 'Request headers are larger than the server accepts',
};

/**
 * Node's HTTP parser refuses a request that is not HTTP, whose headers are too large, or that does not arrive in
 * time; no request object exists then, so the answer is written to the socket directly, as `{detail}` with the
 * status Fastify would use, and the connection is closed (its stream cannot be trusted past the error).
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify({ detail: CLIENT_ERROR_DETAIL[status] });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}
