import { createHmac, timingSafeEqual } from 'node:crypto';

import { SIGNATURE_TOLERANCE_SECONDS } from '../shared';

/** The Standard Webhooks headers of one call, as they arrived. */
export interface SignedCall {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Buffer | string | undefined;
}

export type SignatureCheck =
  { valid: true; id: string; timestamp: number } | { valid: false; reason: string };

const SECRET_PREFIX = 'whsec_';

/** The key bytes of a `whsec_<base64>` secret. */
function keyOf(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
}

/**
 * Checks a call signed in the Standard Webhooks scheme: `webhook-signature` holds one or more space-separated
 * `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>` (two while the server rotates
 * the secret); any one that matches is enough. The timestamp must be within the tolerance of `nowMs`, so a
 * recorded call cannot be replayed later. Comparison is constant-time.
 */
export function verifyStandardWebhook(secret: string, call: SignedCall, nowMs: number): SignatureCheck {
  if (!call.id || !call.timestamp || !call.signature) {
    return {
      valid: false,
      reason: 'Missing webhook-id, webhook-timestamp or webhook-signature header',
    };
  }
  if (call.rawBody === undefined) return { valid: false, reason: 'The request body could not be read' };
  if (!/^\d{1,12}$/.test(call.timestamp)) {
    return { valid: false, reason: 'Malformed webhook-timestamp header: expected Unix seconds' };
  }
  const timestamp = Number(call.timestamp);
  if (Math.abs(nowMs / 1000 - timestamp) > SIGNATURE_TOLERANCE_SECONDS) {
    return {
      valid: false,
      reason: `webhook-timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds away from this server's clock`,
    };
  }

  const expected = createHmac('sha256', keyOf(secret))
    .update(`${call.id}.${call.timestamp}.`)
    .update(call.rawBody)
    .digest();
  const matches = call.signature.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const candidate = Buffer.from(value, 'base64');
    return candidate.length === expected.length && timingSafeEqual(expected, candidate);
  });
  return matches ? { valid: true, id: call.id, timestamp } : { valid: false, reason: 'Invalid signature' };
}
