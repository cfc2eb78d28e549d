import { createHmac } from 'node:crypto';

/** The key bytes of a Standard Webhooks secret (`whsec_` + base64). */
export const secretKey = (secret: string): Buffer => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

/**
 * The `webhook-signature` header of the Standard Webhooks scheme: `v1,<base64 HMAC-SHA256>` of
 * `<id>.<timestamp>.<body>` under each secret, space-separated (two during a rotation's grace period).
 */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const mac = createHmac('sha256', secretKey(secret))
        .update(`${id}.${timestamp}.${body}`)
        .digest('base64');
      return `v1,${mac}`;
    })
    .join(' ');
}
