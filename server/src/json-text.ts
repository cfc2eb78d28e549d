import { isUtf8 } from 'node:buffer';

const hasByteOrderMark = (bytes: Buffer) => bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

/**
 * The text of JSON bytes (a request body, or the answer of an endpoint the server calls): a leading UTF-8 byte
 * order mark skipped (RFC 8259 §8.1 lets a parser ignore it), null when the bytes are not UTF-8, which JSON must be
 * (rather than a text altered by U+FFFD in place of what could not be read).
 */
export function jsonText(body: Buffer): string | null {
  const bytes = hasByteOrderMark(body) ? body.subarray(3) : body;
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}
