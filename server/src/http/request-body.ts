import { isUtf8 } from 'node:buffer';
import type { FastifyRequest } from 'fastify';
import { HttpError } from './http-errors';

const hasByteOrderMark = (bytes: Buffer) => bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

/**
 * The text of a JSON request body, as every parser of one reads it (the REST APIs' and /mcp's): a leading UTF-8
 * byte order mark skipped (RFC 8259 §8.1 lets a parser ignore it), null when the bytes are not UTF-8 (which JSON
 * must be). A body with a Content-Encoding other than identity is a 415 (thrown): bodies are read as sent, so a
 * compressed one would be taken for its bytes, and a label on a plain one would lie.
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

/**
 * The text of JSON bytes (a request body, or the answer of an endpoint the server calls): a leading UTF-8 byte
 * order mark skipped, null when the bytes are not UTF-8, which JSON must be (rather than a text altered by
 * U+FFFD in place of what could not be read).
 */
export function jsonText(body: Buffer): string | null {
  const bytes = hasByteOrderMark(body) ? body.subarray(3) : body;
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}
