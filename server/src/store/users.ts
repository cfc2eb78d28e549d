// Users and their developer keys: what authentication reads on every request, with the cache of keys recently
// read. Every query, and how a row reads back. A key's secret is made here and only its hash stored; a new one
// is returned once, beside its record.
import { PostgresAdapter, type Kysely } from 'kysely';
import { DEFAULT_DEV_KEY_PREFIX, displayKey, hashSecret, newSecret } from '../auth/secrets';
import { DEFAULT_SCOPES, type Scope } from '../contract/scopes';
import { KEY_CACHE_TTL_MS } from './db/defaults';
import { newId } from '../ids';
import { writeBookkeeping } from './db/database';
import type { Row } from './db/records';
import { fromJson, iso, toJson } from './db/rows';
import type { Database } from './db/schema';
import { NotFound } from './db/store-errors';
import { transaction } from './db/transaction';

const KEY_CACHE_SIZE = 10_000;
/** Watched keys read per query by recheckWatchedKeys. */
const RECHECK_CHUNK = 1_000;

export interface User {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKey {
  id: string;
  name: string;
  /** The display form, e.g. svc_dev_abcd...wxyz. */
  key_prefix: string;
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
}

/** A key just revoked: its id, and the hash of its secret (what the key cache knows it by). */
export interface RevokedKey {
  id: string;
  hash: string;
}

/** An unrevoked key as authentication needs it; `last_used_at` in epoch ms. */
export interface ActiveKey {
  id: string;
  user_id: string;
  scopes: Scope[];
  last_used_at: number | null;
}

function decodeUser(row: Row<'users'>): User {
  return { id: row.id, name: row.name, created_at: iso(row.created_at) };
}

function decodeApiKey(row: Row<'api_keys'>): ApiKey {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: fromJson<Scope[]>(row.scopes),
    created_at: iso(row.created_at),
    last_used_at: iso(row.last_used_at),
  };
}

export interface UsersOptions {
  /** How long a cached key is trusted (KEY_CACHE_TTL_MS when omitted). */
  keyCacheTtlMs?: number;
  /**
   * Told every key this instance revokes, to broadcast it to the other instances (their key caches and their
   * revocation watchers); the revocation is answered once this has resolved.
   */
  onKeyRevoked?: (key: RevokedKey) => Promise<void>;
  /** What new keys start with (DEFAULT_DEV_KEY_PREFIX when omitted); lookups do not depend on it. */
  keyPrefix?: string;
}

/** A created key: its record, and the key itself, shown once. */
export interface NewKey {
  key: ApiKey;
  secret: string;
}

export function usersRepository(db: Kysely<Database>, options: UsersOptions = {}) {
  const keyPrefix = options.keyPrefix ?? DEFAULT_DEV_KEY_PREFIX;
  const activeKeys = new KeyCache<ActiveKey>(options.keyCacheTtlMs ?? KEY_CACHE_TTL_MS, KEY_CACHE_SIZE);
  const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter;
  /** What to call when a key is revoked, by key id (see watchRevocation). */
  const revocationWatchers = new Map<string, Set<() => void>>();

  /** Forgets the revoked key in the cache and tells those watching it (a key gone from the database has no hash). */
  function revoked({ id, hash }: { id: string; hash?: string }): void {
    if (hash !== undefined) activeKeys.invalidate(hash);
    const watchers = revocationWatchers.get(id);
    revocationWatchers.delete(id);
    for (const onRevoked of watchers ?? []) onRevoked();
  }

  /** A new key of `userId` with `scopes` (the default read scopes when none): its row and its secret. */
  function newKey(userId: string, name: string, scopes?: Scope[]) {
    const secret = newSecret(keyPrefix);
    const row: Row<'api_keys'> = {
      id: newId(),
      user_id: userId,
      name,
      key_hash: hashSecret(secret),
      key_prefix: displayKey(secret, keyPrefix),
      scopes: toJson([...new Set(scopes ?? DEFAULT_SCOPES)]),
      created_at: Date.now(),
      last_used_at: null,
      revoked_at: null,
    };
    return { row, secret };
  }

  /** NotFound "User not found" unless the user exists. */
  async function requireUser(userId: string): Promise<void> {
    const row = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    if (!row) throw new NotFound('User');
  }

  /** Reads the unrevoked key with this hash and caches it (see key-cache.ts). */
  async function readActiveKey(hash: string): Promise<ActiveKey | undefined> {
    const lookup = activeKeys.begin();
    const row = await db
      .selectFrom('api_keys')
      .select(['id', 'user_id', 'scopes', 'last_used_at'])
      .where('key_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    const key = { ...row, scopes: fromJson<Scope[]>(row.scopes) };
    activeKeys.set(hash, key, lookup);
    return key;
  }

  return {
    async createUser(name: string): Promise<User> {
      const row = { id: newId(), name, created_at: Date.now() };
      await db.insertInto('users').values(row).execute();
      return decodeUser(row);
    },

    /** Oldest first. */
    async listUsers(): Promise<User[]> {
      const rows = await db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(decodeUser);
    },

    /** Whether the instance has any user yet (a fresh database has none). */
    async hasUsers(): Promise<boolean> {
      return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
    },

    /**
     * A new developer key of an existing user (NotFound "User" otherwise), with `scopes` or else the default
     * read scopes. The key itself (`secret`) is returned here and never stored.
     */
    async createKey(userId: string, name: string, scopes?: Scope[]): Promise<NewKey> {
      await requireUser(userId);
      const made = newKey(userId, name, scopes);
      await db.insertInto('api_keys').values(made.row).execute();
      return { key: decodeApiKey(made.row), secret: made.secret };
    },

    /**
     * As createKey, for the user of the key `issuerId`, which asks for it; undefined when that key is revoked by
     * now. The key cache may have let the request in after a revocation on another instance, so the issuer is
     * read again in the transaction that stores the new key, its row locked against a revocation committing
     * meanwhile: a key racing its own revocation cannot leave a new key behind.
     */
    async createKeyAs(
      issuerId: string,
      userId: string,
      name: string,
      scopes: Scope[],
    ): Promise<NewKey | undefined> {
      const made = newKey(userId, name, scopes);
      const stored = await transaction(db, async (trx) => {
        const issuer = await trx
          .selectFrom('api_keys')
          .select('id')
          .where('id', '=', issuerId)
          .where('user_id', '=', userId)
          .where('revoked_at', 'is', null)
          .$if(isPostgres, (q) => q.forShare())
          .executeTakeFirst();
        if (!issuer) return false;
        await trx.insertInto('api_keys').values(made.row).execute();
        return true;
      });
      return stored ? { key: decodeApiKey(made.row), secret: made.secret } : undefined;
    },

    /**
     * The user's unrevoked keys, oldest first (the admin API's order) or newest first (the developer API's, as
     * the real service lists them); NotFound "User" for an unknown user.
     */
    async listKeys(
      userId: string,
      order: 'oldest first' | 'newest first' = 'oldest first',
    ): Promise<ApiKey[]> {
      await requireUser(userId);
      const direction = order === 'oldest first' ? 'asc' : 'desc';
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .orderBy('created_at', direction)
        .orderBy('id', direction)
        .execute();
      return rows.map(decodeApiKey);
    },

    /** The key (revoked or not); NotFound "Key" when there is none. */
    async findKey(keyId: string): Promise<ApiKey> {
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
      if (!row) throw new NotFound('Key');
      return decodeApiKey(row);
    },

    /**
     * The unrevoked key whose secret is `secret`, if any: from the key cache when it was read less than
     * `keyCacheTtlMs` ago (see key-cache.ts for how a revocation reaches every instance).
     */
    findActiveKey(secret: string): ActiveKey | undefined | Promise<ActiveKey | undefined> {
      const hash = hashSecret(secret);
      // A cached key is answered at once, without a promise: this is every authenticated request's path.
      return activeKeys.get(hash) ?? readActiveKey(hash);
    },

    /**
     * Records that the key was used at `at` (epoch ms), in the database and on the key as cached. Bookkeeping:
     * it leaves the response cache as it is (no answer it keeps shows a key).
     */
    async touchKey(key: ActiveKey, at: number): Promise<void> {
      await writeBookkeeping(
        db,
        db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', key.id).compile(),
      );
      key.last_used_at = at;
    },

    /**
     * Revokes an unrevoked key — of `owner.userId` only, when given — and tells every instance (onKeyRevoked).
     * NotFound "Key" (or `owner.thing`) when there is no such key, it is revoked already or it is another user's.
     */
    async revokeKey(keyId: string, owner?: { userId: string; thing: string }): Promise<void> {
      let update = db
        .updateTable('api_keys')
        .set({ revoked_at: Date.now() })
        .where('id', '=', keyId)
        .where('revoked_at', 'is', null);
      if (owner) update = update.where('user_id', '=', owner.userId);
      const row = await update.returning(['id', 'key_hash']).executeTakeFirst();
      if (!row) throw new NotFound(owner?.thing ?? 'Key');
      const key = { id: row.id, hash: row.key_hash };
      revoked(key);
      await options.onKeyRevoked?.(key);
    },

    /**
     * Forgets a key another instance revoked, as this one forgets those it revokes: out of the key cache (whose
     * expiry alone bounds that to `keyCacheTtlMs`) and its watchers told.
     */
    revokedElsewhere(key: RevokedKey): void {
      revoked(key);
    },

    /**
     * Forgets every cached key: what an instance does when its link to the others is back, as a revocation
     * broadcast while it was down never reached it. Each key's next request reads it from the database.
     */
    forgetCachedKeys(): void {
      activeKeys.clear();
    },

    /**
     * Calls `onRevoked` once, when the key `keyId` is revoked by this instance or another one tells this one
     * (revokedElsewhere); returns what stops watching. A revocation before the call goes unnoticed: see
     * isKeyActive.
     */
    watchRevocation(keyId: string, onRevoked: () => void): () => void {
      const watchers = revocationWatchers.get(keyId) ?? new Set();
      revocationWatchers.set(keyId, watchers);
      watchers.add(onRevoked);
      return () => {
        watchers.delete(onRevoked);
        if (watchers.size === 0 && revocationWatchers.get(keyId) === watchers)
          revocationWatchers.delete(keyId);
      };
    },

    /**
     * Reads every watched key again and tells the watchers of each one found revoked (or gone): what ends the
     * notification streams of a key whose revocation this instance was never told (its broadcast missed while
     * the link to the other instances was down). Ids are read in chunks well under either database's limit on
     * query parameters.
     */
    async recheckWatchedKeys(): Promise<void> {
      const watched = [...revocationWatchers.keys()];
      for (let start = 0; start < watched.length; start += RECHECK_CHUNK) {
        const ids = watched.slice(start, start + RECHECK_CHUNK);
        const rows = await db
          .selectFrom('api_keys')
          .select(['id', 'key_hash', 'revoked_at'])
          .where('id', 'in', ids)
          .execute();
        const active = new Set(rows.filter((row) => row.revoked_at === null).map((row) => row.id));
        const hashes = new Map(rows.map((row) => [row.id, row.key_hash]));
        for (const id of ids) if (!active.has(id)) revoked({ id, hash: hashes.get(id) });
      }
    },

    /** Whether the key `keyId` is unrevoked, read from the database (never from the key cache). */
    async isKeyActive(keyId: string): Promise<boolean> {
      const row = await db
        .selectFrom('api_keys')
        .select('id')
        .where('id', '=', keyId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return row !== undefined;
    },

    requireUser,
  };
}

export type UsersRepository = ReturnType<typeof usersRepository>;

// Developer keys recently read, by the SHA-256 of their secret: an authenticated request then costs no key
// lookup. How a revocation reaches a cached key:
// - on the instance that revoked it, at once: the users repository invalidates the entry as it revokes;
// - on every other instance sharing the database, as soon as the broadcast of the revocation (Redis pub/sub or
//   PostgreSQL LISTEN/NOTIFY, see app.ts) calls `invalidate(hash)` there (through revokedElsewhere, which also
//   tells the key's revocation watchers, e.g. the notification streams opened with it);
// - should that broadcast be lost while an instance could not receive (Redis or its LISTEN connection down), as
//   soon as it receives again: the bus tells it (onResumed) and it forgets every cached key (forgetCachedKeys);
// - and should it be lost otherwise, within `ttlMs` of its last read: an entry is only served for `ttlMs`
//   after the lookup that filled it began, then the key is read again (and found revoked).

class KeyCache<T> {
  private readonly entries = new Map<string, { value: T; readAt: number }>();
  /** Bumped by every invalidation, so a lookup that began before one cannot store what it read. */
  private invalidations = 0;

  constructor(
    readonly ttlMs: number,
    readonly max: number,
  ) {}

  /** The key read for `hash` less than `ttlMs` ago, if any. */
  get(hash: string, now = Date.now()): T | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (now - entry.readAt < this.ttlMs) return entry.value;
    this.entries.delete(hash);
    return undefined;
  }

  /** What a lookup returns to note before it reads: its start time and the invalidations so far. */
  begin(now = Date.now()): { readAt: number; invalidations: number } {
    return { readAt: now, invalidations: this.invalidations };
  }

  /**
   * Keeps what a lookup read, unless a key was invalidated since it began (what it read may be what was
   * just revoked). Past `max` entries the oldest read goes.
   */
  set(hash: string, value: T, lookup: { readAt: number; invalidations: number }): void {
    if (lookup.invalidations !== this.invalidations) return;
    this.entries.delete(hash);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { value, readAt: lookup.readAt });
  }

  /** Forgets the key whose secret hashes to `hash`: its next request reads it from the database. */
  invalidate(hash: string): void {
    this.invalidations += 1;
    this.entries.delete(hash);
  }

  /** Forgets every key, a lookup under way included (it may have read a key revoked since). */
  clear(): void {
    this.invalidations += 1;
    this.entries.clear();
  }
}
