import type { FastifyRequest } from 'fastify';
import { jsonText } from '../json-text';
import { HttpError } from './http-errors';

/**
 * The text of a JSON request body, as every parser of one reads it (the REST APIs' and /mcp's): see jsonText. A
 * body with a Content-Encoding other than identity is a 415 (thrown): bodies are read as sent, so a compressed one
 * would be taken for its bytes, and a label on a plain one would lie.
 */
export function jsonBodyText(request: FastifyRequest, body: Buffer): string | null {
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    throw new HttpError(
      415,
      `Content-Encoding '${request.headers['content-encoding']}' is not supported: send the body uncompressed, without a Content-Encoding header`,
    );
  }
  return jsonText(body);
}
