// People: every query, and how a row reads back. Names are unique per user regardless of case and
// surrounding spaces (the name_key column).
import type { Kysely } from 'kysely';
import { newId } from '../ids';
import { userWrite } from './db/write-clock';
import { Conflict, isUniqueViolation } from './db/store-errors';
import { allOwned, createOwned, deleteOwned, findOwned, updateChanged, type Row } from './db/records';
import { fromJson, iso, toJson } from './db/rows';
import type { Database } from './db/schema';

export interface Person {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
  speech_sample_transcripts: string[];
}

const nameKey = (name: string) => name.trim().toLowerCase();

const nameTaken = (name: string) =>
  new Conflict(`A person named ${name} already exists: choose another name, or use that person`);

function decodePerson(row: Row<'people'>): Person {
  return {
    id: row.id,
    name: row.name,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    speech_sample_transcripts: fromJson<string[]>(row.speech_sample_transcripts),
  };
}

export function peopleRepository(db: Kysely<Database>) {
  const findByKey = (trx: Kysely<Database>, userId: string, key: string) =>
    trx
      .selectFrom('people')
      .selectAll()
      .where('user_id', '=', userId)
      .where('name_key', '=', key)
      .executeTakeFirst();

  return {
    /** By name. */
    async list(userId: string): Promise<Person[]> {
      return (await allOwned(db, 'people', userId, 'name_key')).map(decodePerson);
    },

    /**
     * The person with this name, created when there is none. A concurrent request that
     * creates the same name first makes this one find it, as if it came second.
     */
    async findOrCreate(userId: string, name: string): Promise<Person> {
      const key = nameKey(name);
      const existing = await findByKey(db, userId, key);
      if (existing) return decodePerson(existing);
      try {
        const [row] = await createOwned(db, userId, 'people', (at) => [
          {
            id: newId(at),
            user_id: userId,
            name,
            name_key: key,
            speech_sample_transcripts: toJson([]),
            created_at: at,
            updated_at: at,
          },
        ]);
        return decodePerson(row);
      } catch (error) {
        const raced = isUniqueViolation(error) ? await findByKey(db, userId, key) : undefined;
        if (!raced) throw error;
        return decodePerson(raced);
      }
    },

    /** A new name (absent: none); Conflict when another of the user's people has it. */
    async rename(userId: string, id: string, name: string | undefined): Promise<Person> {
      try {
        return await userWrite(db, userId, async (trx, at) => {
          const current = await findOwned(trx, 'people', userId, id);
          if (name === undefined) return decodePerson(current);
          const key = nameKey(name);
          if (key !== current.name_key && (await findByKey(trx, userId, key))) throw nameTaken(name);
          const { row } = await updateChanged(trx, 'people', current, { name, name_key: key }, at);
          return decodePerson(row);
        });
      } catch (error) {
        if (name !== undefined && isUniqueViolation(error)) throw nameTaken(name);
        throw error;
      }
    },

    /** Deletes the caller's person and leaves its tombstone, in one transaction. */
    async delete(userId: string, id: string): Promise<void> {
      await userWrite(db, userId, (trx, at) => deleteOwned(trx, 'people', userId, id, at));
    },
  };
}
