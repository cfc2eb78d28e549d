import { type Kysely, PostgresAdapter, sql } from 'kysely';

// PostgreSQL only (SQLite's search needs neither): what lets a search rank only the caller's matches without
// reading every match's record first.
//
// - Each search row holds its record's user, so the user's matches are known from the search table alone (a GIN
//   bitmap and a look at small heap rows), before any record or any tsvector is read. A BEFORE INSERT trigger
//   copies it from the record, which the indexing trigger of 0008 has just written; a record never changes user.
// - The GIN indexes stop collecting new entries in a pending list (fastupdate). Every search scans that list in
//   full, and its size (up to 4 MB) makes the planner price the index above a sequential scan of the search
//   table, which reads every stored tsvector: 100 ms instead of 4 ms for a word in 1.5 % of 10,000 conversations.
//   A write now adds its entries to the index itself, a little slower; the entries already pending are moved in.

const TABLES = ['conversations', 'memories', 'action_items'];

const raw = (db: Kysely<unknown>, text: string) => sql.raw(text).execute(db);
const isPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const table of TABLES) {
    const search = `${table}_search`;
    await raw(db, `alter table ${search} add column user_id text`);
    await raw(db, `update ${search} s set user_id = r.user_id from ${table} r where r.id = s.id`);
    await raw(db, `alter table ${search} alter column user_id set not null`);
    await raw(
      db,
      `create function ${search}_owner() returns trigger language plpgsql as $$
       begin
         new.user_id := (select user_id from ${table} where id = new.id);
         return new;
       end $$`,
    );
    await raw(
      db,
      `create trigger ${search}_owner before insert on ${search} for each row execute function ${search}_owner()`,
    );
    await raw(db, `alter index ${search}_document set (fastupdate = off)`);
    await raw(db, `select gin_clean_pending_list('${search}_document'::regclass)`);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const table of TABLES) {
    const search = `${table}_search`;
    await raw(db, `alter index ${search}_document reset (fastupdate)`);
    await raw(db, `drop function if exists ${search}_owner() cascade`);
    await raw(db, `alter table ${search} drop column if exists user_id`);
  }
}
