import { createHmac, timingSafeEqual } from 'node:crypto';

import { SIGNATURE_TOLERANCE_SECONDS } from '../shared';

/** A valid call has an `id`: its signature under the credential's secret, the same for every copy of it. */
export type SignatureCheck = { valid: true; id: string } | { valid: false; reason: string };

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/**
 * Checks DevData's `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + rawBody)>` against the
 * body exactly as it arrived. Several `v1` entries are allowed (one per secret while a secret is rotated); any
 * one that matches is enough. Comparison is constant-time.
 */
export function verifySignature(
  secret: string,
  rawBody: Buffer | string | undefined,
  header: string | undefined,
  nowMs: number,
): SignatureCheck {
  if (!header) return { valid: false, reason: 'Missing X-Signature header' };
  if (rawBody === undefined) return { valid: false, reason: 'The request body could not be read' };

  let timestamp: string | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't') timestamp = value;
    else if (key === 'v1') candidates.push(value);
  }
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp) || candidates.length === 0) {
    return { valid: false, reason: 'Malformed X-Signature header: expected t=<unix seconds>,v1=<hex>' };
  }
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) {
    return {
      valid: false,
      reason: `Signature timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds away from this server's clock`,
    };
  }

  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  const matches = candidates.some(
    (candidate) => HEX_SHA256.test(candidate) && timingSafeEqual(expected, Buffer.from(candidate, 'hex')),
  );
  return matches
    ? { valid: true, id: expected.toString('hex') }
    : { valid: false, reason: 'Invalid signature' };
}
