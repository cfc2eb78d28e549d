import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Full-text search over conversations (title, overview, transcript text), memories (content) and action items
// (description), each database with its own engine, kept in step by triggers, so every write that touches an
// indexed column (create, batch, update, live append, delete, a user's cascade) updates the index in the write's
// own transaction, whichever repository made it.
//
// SQLite: an FTS5 table per record type (porter stemming over unicode61). FTS5 keys its rows by an integer, and a
// text-keyed table's rowid may change on VACUUM, so a keys table gives each record a stable integer.
// PostgreSQL: a side table per record type holding a weighted `tsvector` (english configuration) under a GIN index.

/** A record type's indexed text: its columns by name, each an SQL expression over the row `r` (NEW in triggers). */
interface Indexed {
  table: string;
  /** The columns the indexed text comes from: an update of any of them re-indexes the row. */
  watched: string[];
  /** SQLite: the FTS5 columns and their expressions. */
  sqlite: Record<string, (r: string) => string>;
  /** PostgreSQL: the weighted tsvector of the row. */
  postgres: (r: string) => string;
}

// A transcript's text in PostgreSQL is capped: a tsvector holds at most 1 MB, and 300,000 characters stay below it.
const PG_TRANSCRIPT_CHARS = 300_000;
const pgWeighted = (text: string, weight: string) =>
  `setweight(to_tsvector('english', coalesce(${text}, '')), '${weight}')`;

const INDEXED: Indexed[] = [
  {
    table: 'conversations',
    watched: ['structured', 'transcript_segments'],
    sqlite: {
      title: (r) => `json_extract(${r}.structured, '$.title')`,
      overview: (r) => `json_extract(${r}.structured, '$.overview')`,
      transcript: (r) =>
        `(select group_concat(json_extract(value, '$.text'), ' ') from json_each(${r}.transcript_segments))`,
    },
    postgres: (r) =>
      [
        pgWeighted(`${r}.structured::jsonb ->> 'title'`, 'A'),
        pgWeighted(`${r}.structured::jsonb ->> 'overview'`, 'B'),
        pgWeighted(
          `left((select string_agg(s ->> 'text', ' ') from jsonb_array_elements(${r}.transcript_segments::jsonb) s), ${PG_TRANSCRIPT_CHARS})`,
          'C',
        ),
      ].join(' || '),
  },
  {
    table: 'memories',
    watched: ['content'],
    sqlite: { content: (r) => `${r}.content` },
    postgres: (r) => pgWeighted(`${r}.content`, 'A'),
  },
  {
    table: 'action_items',
    watched: ['description'],
    sqlite: { description: (r) => `${r}.description` },
    postgres: (r) => pgWeighted(`${r}.description`, 'A'),
  },
];

const raw = (db: Kysely<unknown>, text: string) => sql.raw(text).execute(db);

async function upSqlite(db: Kysely<unknown>, { table, watched, sqlite }: Indexed): Promise<void> {
  const keys = `${table}_search_keys`;
  const fts = `${table}_search`;
  const columns = Object.keys(sqlite);
  const values = (r: string) => Object.values(sqlite).map((expression) => expression(r));
  const docOf = (r: string) => `(select doc from ${keys} where id = ${r}.id)`;
  const insert = (r: string) =>
    `insert into ${fts} (rowid, ${columns.join(', ')}) values (${[docOf(r), ...values(r)].join(', ')});`;
  const remove = `delete from ${fts} where rowid = ${docOf('old')};`;
  await raw(db, `create table ${keys} (doc integer primary key, id text not null unique)`);
  await raw(
    db,
    `create virtual table ${fts} using fts5(${columns.join(', ')}, tokenize = 'porter unicode61')`,
  );
  await raw(
    db,
    `create trigger ${fts}_insert after insert on ${table} begin
       insert into ${keys} (id) values (new.id);
       ${insert('new')}
     end`,
  );
  await raw(
    db,
    `create trigger ${fts}_update after update of ${watched.join(', ')} on ${table} begin
       ${remove}
       ${insert('new')}
     end`,
  );
  await raw(
    db,
    `create trigger ${fts}_delete after delete on ${table} begin
       ${remove}
       delete from ${keys} where id = old.id;
     end`,
  );
  // The rows already stored.
  await raw(db, `insert into ${keys} (id) select id from ${table}`);
  await raw(
    db,
    `insert into ${fts} (rowid, ${columns.join(', ')})
       select k.doc, ${values('r').join(', ')} from ${table} r join ${keys} k on k.id = r.id`,
  );
}

async function upPostgres(db: Kysely<unknown>, { table, watched, postgres }: Indexed): Promise<void> {
  const search = `${table}_search`;
  await raw(
    db,
    `create table ${search} (
       id text primary key references ${table} (id) on delete cascade,
       document tsvector not null
     )`,
  );
  await raw(db, `create index ${search}_document on ${search} using gin (document)`);
  await raw(
    db,
    `create function ${search}_sync() returns trigger language plpgsql as $$
     begin
       insert into ${search} (id, document) values (new.id, ${postgres('new')})
         on conflict (id) do update set document = excluded.document;
       return null;
     end $$`,
  );
  await raw(
    db,
    `create trigger ${search}_sync after insert or update of ${watched.join(', ')} on ${table}
       for each row execute function ${search}_sync()`,
  );
  await raw(db, `insert into ${search} (id, document) select r.id, ${postgres('r')} from ${table} r`);
}

const isPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const indexed of INDEXED) {
    if (isPostgres(db)) await upPostgres(db, indexed);
    else await upSqlite(db, indexed);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { table } of INDEXED) {
    const search = `${table}_search`;
    if (isPostgres(db)) {
      await raw(db, `drop table if exists ${search}`);
      await raw(db, `drop function if exists ${search}_sync() cascade`);
    } else {
      for (const trigger of ['insert', 'update', 'delete'])
        await raw(db, `drop trigger if exists ${search}_${trigger}`);
      await raw(db, `drop table if exists ${search}`);
      await raw(db, `drop table if exists ${search}_keys`);
    }
  }
}
