import type { Kysely } from 'kysely';
import { isPostgres, raw } from './postgres';

// SQLite only: a Latin letter with two accents folds as one with one does. FTS5's unicode61 tokenizer left such a
// letter as it was unless told `remove_diacritics 2`: the Vietnamese ễ, ệ or ộ (Nguyễn, Việt, Hà Nội) and the
// pinyin ǜ, so "Nguyen" did not find Nguyễn, nor "Nguyễn" a Nguyễn stored decomposed, where PostgreSQL (0014)
// folds every accent of a Latin letter. Each FTS5 table is made again with that tokenizer, under the same name
// (0008's triggers write to it by name) and with the same rowids (its keys table stays), and filled from its
// records. Other scripts still keep their marks, as on PostgreSQL.

/** Each index: its FTS5 columns and their text (SQL over the record `r`), as 0008 made them. */
const INDEXES: Record<string, Record<string, string>> = {
  conversations: {
    title: `json_extract(r.structured, '$.title')`,
    overview: `json_extract(r.structured, '$.overview')`,
    transcript: `(select group_concat(json_extract(value, '$.text'), ' ') from json_each(r.transcript_segments))`,
  },
  memories: { content: 'r.content' },
  action_items: { description: 'r.description' },
};

/** Makes each FTS5 table again with `tokenizer`, holding every record's text. */
async function rebuild(db: Kysely<unknown>, tokenizer: string): Promise<void> {
  if (isPostgres(db)) return;
  for (const [table, columns] of Object.entries(INDEXES)) {
    const fts = `${table}_search`;
    const names = Object.keys(columns).join(', ');
    await raw(db, `drop table ${fts}`);
    await raw(db, `create virtual table ${fts} using fts5(${names}, tokenize = '${tokenizer}')`);
    await raw(
      db,
      `insert into ${fts} (rowid, ${names})
         select k.doc, ${Object.values(columns).join(', ')} from ${table} r join ${fts}_keys k on k.id = r.id`,
    );
  }
}

export const up = (db: Kysely<unknown>) => rebuild(db, 'porter unicode61 remove_diacritics 2');
export const down = (db: Kysely<unknown>) => rebuild(db, 'porter unicode61');
