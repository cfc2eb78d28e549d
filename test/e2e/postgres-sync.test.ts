// examples/action-item-sync-postgres.json in a real n8n: the action items synced both ways with a PostgreSQL
// table through n8n's Postgres node, under random changes on both sides (see sync-driver.ts). The table is made
// with the CREATE TABLE of docs/syncing-action-items.md in a database of its own.
import pg from 'pg';
import { createDatabase } from '../helpers/server';
import { syncSuite, type Fields } from './sync-driver.ts';

/** docs/syncing-action-items.md's CREATE TABLE (test/server/docs-links.test.ts holds the page to it). */
const CREATE_TABLE = `
CREATE TABLE devdata_action_items (
  id          serial PRIMARY KEY,
  description text NOT NULL,
  completed   boolean NOT NULL DEFAULT false,
  due_at      timestamptz,
  devdata_id  text UNIQUE,
  updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE FUNCTION devdata_action_items_touch() RETURNS trigger AS $$
BEGIN NEW.updated_at := clock_timestamp(); RETURN NEW; END $$ LANGUAGE plpgsql;
CREATE TRIGGER devdata_action_items_touch BEFORE UPDATE ON devdata_action_items
  FOR EACH ROW EXECUTE FUNCTION devdata_action_items_touch();
`;

let database: Awaited<ReturnType<typeof createDatabase>>;
let client: pg.Client;

syncSuite({
  example: 'action-item-sync-postgres.json',
  workflowId: 'devdataSyncPg01',
  async credentials() {
    database = await createDatabase('postgres');
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(CREATE_TABLE);
    const url = new URL(database.url);
    return [
      {
        id: 'postgresDevData01',
        name: 'Postgres account',
        type: 'postgres',
        data: {
          host: url.hostname,
          port: Number(url.port || 5432),
          database: url.pathname.slice(1),
          user: decodeURIComponent(url.username),
          password: decodeURIComponent(url.password),
          ssl: 'disable',
        },
      },
    ];
  },
  async setUp() {
    return {
      async rows() {
        return (await client.query('SELECT * FROM devdata_action_items')).rows;
      },
      async insert(fields: Fields) {
        await client.query(
          'INSERT INTO devdata_action_items (description, completed, due_at) VALUES ($1, $2, $3)',
          [fields.description, fields.completed, fields.due_at],
        );
      },
      async update(id: number, fields: Partial<Fields>) {
        const names = Object.keys(fields);
        await client.query(
          `UPDATE devdata_action_items SET ${names.map((name, i) => `${name} = $${i + 2}`).join(', ')} WHERE id = $1`,
          [id, ...Object.values(fields)],
        );
      },
      async remove(id: number) {
        await client.query('DELETE FROM devdata_action_items WHERE id = $1', [id]);
      },
    };
  },
  async tearDown() {
    await client?.end();
    await database?.drop();
  },
});
