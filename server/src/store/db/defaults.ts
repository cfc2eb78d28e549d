// Defaults of the store's settings, in a module of their own: the settings (config.ts) and the CLI's messages read
// them without loading the database drivers and Kysely.

/**
 * How long a new PostgreSQL connection may take to be answered. A host that takes the connection and never
 * answers (a hung server, a firewall holding it) would otherwise hold a start, or a request, forever: past this it
 * is out of reach like a refused one.
 */
export const PG_CONNECT_TIMEOUT_MS = 10_000;

/**
 * How long a key read from the database is trusted by default: a revocation elsewhere shows here within
 * this even when the broadcast of it is lost.
 */
export const KEY_CACHE_TTL_MS = 500;
