// The store's errors, which http/error-handler.ts turns into the interface's answers, and the database errors
// recognised the same way on both dialects. Nothing here knows HTTP.

/**
 * The caller's record does not exist — or belongs to another user, which must look the same so that ids of
 * other users' records cannot be probed. `thing` names it for the message: "<thing> not found".
 */
export class NotFound extends Error {
  constructor(thing: string) {
    super(`${thing} not found`);
  }
}

/** The write would break a rule of the data (a name already taken, …); `message` says which, for the caller. */
export class Conflict extends Error {}

const SQLITE_UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);
const PG_UNIQUE_VIOLATION = '23505';

/**
 * True when `error` is a unique-constraint (or primary-key) violation: better-sqlite3 reports
 * `SQLITE_CONSTRAINT_UNIQUE` / `SQLITE_CONSTRAINT_PRIMARYKEY` (extended codes), PostgreSQL SQLSTATE 23505.
 * Other constraint failures (foreign key, not null, check) are not unique violations.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === PG_UNIQUE_VIOLATION) return true;
  if (typeof code !== 'string') return false;
  if (SQLITE_UNIQUE_CODES.has(code)) return true;
  // Without extended result codes SQLite says only SQLITE_CONSTRAINT; the message tells which kind.
  return (
    code === 'SQLITE_CONSTRAINT' && typeof message === 'string' && /^UNIQUE constraint failed/.test(message)
  );
}

// PostgreSQL SQLSTATEs of a transaction aborted to resolve a conflict with another: deadlock_detected and
// serialization_failure. Nothing was written, and the same transaction run again may commit.
const PG_CONFLICT_ABORT_CODES = new Set(['40P01', '40001']);

/** True when PostgreSQL aborted the transaction over a conflict with another (store/db/transaction.ts retries). */
export function isConflictAbort(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && PG_CONFLICT_ABORT_CODES.has(code);
}

// PostgreSQL SQLSTATEs that mean the database cannot serve now, not that the request is wrong: the class 08
// connection exceptions, shutdowns (57P01-57P03), too many connections (53300), and what a new connection meets
// when the database named is gone (3D000: dropped or renamed, until it is restored) or its role is refused (28000,
// 28P01: a password or pg_hba.conf changed under the running server). Those last three come only from connecting,
// never from a query a request made.
const PG_CONNECTION_CLASS = '08';
const PG_UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', '3D000', '28000', '28P01']);
// ENOTFOUND: the database's host name does not resolve now (a DNS outage, a service being replaced).
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
]);
// node-postgres reports a connection lost mid-query or a connect timeout by message only (`timeout expired`: a
// connect past PG_CONNECT_TIMEOUT_MS); a database that is not accepting connections (ALLOW_CONNECTIONS false) is
// SQLSTATE 55000, a code also used for errors in a query.
const PG_CONNECTION_LOST =
  /^Connection terminated|^timeout expired$|timeout exceeded when trying to connect|is not currently accepting connections/;

/**
 * True when `error` says the database is out of reach or busy for now (server down or restarting, connection
 * lost, SQLite locked by another process past the busy timeout, a transaction still aborted over a conflict after
 * its retries): the request may succeed if retried.
 */
export function isUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (isConflictAbort(error)) return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (code.length === 5 && code.startsWith(PG_CONNECTION_CLASS)) return true;
    if (PG_UNAVAILABLE_CODES.has(code) || NETWORK_CODES.has(code)) return true;
    if (code.startsWith('SQLITE_BUSY')) return true;
  }
  return typeof message === 'string' && PG_CONNECTION_LOST.test(message);
}
