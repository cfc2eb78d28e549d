import { hash, randomBytes } from 'node:crypto';

/** What developer keys start with unless DEVDATA_KEY_PREFIX says otherwise. */
export const DEFAULT_DEV_KEY_PREFIX = 'svc_dev_';
export const APP_SECRET_PREFIX = 'sk_';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const ADMIN_TOKEN_PREFIX = 'svc_admin_';

/** A new secret: the prefix and 32 hex digits. Only its hash is stored. */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(16).toString('hex');
}

/** The SHA-256 of a secret, in hex: what is stored and looked up. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret);
}

/** The display form of a key made with `prefix`, e.g. `svc_dev_abcd...wxyz`. */
export function displayKey(key: string, prefix: string): string {
  const body = key.startsWith(prefix) ? key.slice(prefix.length) : key;
  return `${prefix}${body.slice(0, 4)}...${body.slice(-4)}`;
}

// The scheme name is case-insensitive (RFC 7235 §2.1), so `bearer` and `BEARER` are the same scheme.
const BEARER = /^Bearer +([^\s]+)$/i;

/** The token of an `Authorization: Bearer <token>` header, or undefined when it is missing or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header.trim())?.[1] : undefined;
}
