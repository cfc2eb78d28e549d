// Database errors the routes turn into answers, recognised the same way on both dialects.

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
