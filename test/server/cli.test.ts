// The built CLI as a self-hoster runs it: init, seed, serve, and a clean shutdown under load.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { openStore } from '../../server/src/store/db/database';
import { CLI, runCli, serveCli } from '../helpers/cli';
import { client } from '../helpers/http';
import { createDatabase, DIALECTS } from '../helpers/server';

describe('devdata-server --help', () => {
  it.each(['serve', 'init', 'seed', 'start', 'rotate-admin-token'])('explains %s', (command) => {
    const result = runCli([command, '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`devdata-server ${command}`);
  });

  it('refuses an unknown command', () => {
    const result = runCli(['frobnicate']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Unknown command "frobnicate"');
  });
});

describe('devdata-server init', () => {
  it('fails, saying so, when its credentials cannot be written out (they are shown nowhere else)', async () => {
    // Seen: with stdout on a full disk, init made the user, keys and app, printed nothing and exited 0.
    const database = await createDatabase('sqlite');
    const full = openSync('/dev/full', 'w');
    try {
      const result = spawnSync(process.execPath, [CLI, 'init', '--json', '--database', database.url], {
        stdio: ['ignore', full, 'pipe'],
        encoding: 'utf8',
      });
      expect({ status: result.status, stderr: result.stderr }).toEqual({
        status: 1,
        stderr:
          'The credentials init made could not be written out (ENOSPC: no space left on device, write); they ' +
          'are shown nowhere else: run init again with its output going where it can be written\n',
      });
    } finally {
      closeSync(full);
      await database.drop();
    }
  });
});

describe.each(DIALECTS)('devdata-server on %s', (dialect) => {
  it('replaces every admin token with rotate-admin-token, the old ones refused at once by a running server', async () => {
    const database = await createDatabase(dialect);
    try {
      const tokenOf = (result: ReturnType<typeof runCli>) => {
        expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
        return JSON.parse(result.stdout).admin_token as string;
      };
      const first = tokenOf(runCli(['init', '--json', '--database', database.url]));
      const second = tokenOf(runCli(['init', '--json', '--database', database.url]));
      const served = await serveCli(database.url);
      try {
        const status = async (token: string) =>
          (await fetch(`${served.baseUrl}/v1/admin/users`, { headers: { authorization: `Bearer ${token}` } }))
            .status;
        expect([await status(first), await status(second)]).toEqual([200, 200]);

        const third = tokenOf(runCli(['rotate-admin-token', '--json', '--database', database.url]));
        expect(third).toMatch(/^svc_admin_[0-9a-f]{32}$/);
        expect([await status(first), await status(second), await status(third)]).toEqual([401, 401, 200]);

        const plain = runCli(['rotate-admin-token', '--database', database.url]);
        expect(plain.status).toBe(0);
        const fourth = /^admin_token: (svc_admin_[0-9a-f]{32})\n$/.exec(plain.stdout)?.[1];
        expect([await status(third), await status(fourth!)]).toEqual([401, 200]);
      } finally {
        await served.stop();
      }
    } finally {
      await database.drop();
    }
  });

  it('inits, seeds, serves, and shuts down without losing an acknowledged write', async () => {
    const database = await createDatabase(dialect);
    try {
      const init = runCli(['init', '--json', '--database', database.url]);
      expect(init.status).toBe(0);
      const credentials = JSON.parse(init.stdout);
      expect(Object.keys(credentials).sort()).toEqual(
        ['admin_token', 'app_id', 'app_secret', 'developer_key', 'user_id', 'webhook_secret'].sort(),
      );
      expect(credentials.developer_key).toMatch(/^svc_dev_[0-9a-f]{32}$/);

      const seed = runCli(['seed', '--demo', '--database', database.url]);
      expect(seed.status).toBe(0);
      expect(seed.stdout).toContain('"screen_activity":3000');

      const served = await serveCli(database.url);
      const { child, logs, exited, baseUrl } = served;
      try {
        const api = client(baseUrl, credentials.developer_key);
        const page = await api.get('/v1/dev/user/screen-activity', { limit: 1000 });
        expect(page.status).toBe(200);
        expect(page.body.screen_activity).toHaveLength(1000);
        expect(page.body.has_more).toBe(true);
        // Demo memories read as the API's own: added by hand, reviewed, approved, not edited.
        const memories = await api.get('/v1/dev/user/memories', { limit: 100 });
        expect(memories.body.length).toBeGreaterThan(0);
        for (const memory of memories.body)
          expect(memory).toMatchObject({
            manually_added: true,
            reviewed: true,
            user_review: true,
            edited: false,
          });

        // Writes in flight when SIGTERM arrives: every one acknowledged must be stored.
        const writes = Array.from({ length: 30 }, (_, i) =>
          api.post('/v1/dev/user/action-items', { description: `during shutdown ${i}` }).catch(() => null),
        );
        await new Promise((r) => setTimeout(r, 5));
        child.kill('SIGTERM');
        const replies = await Promise.all(writes);
        expect(await exited).toBe(0);
        const acknowledged = replies.filter((r) => r?.status === 200).map((r) => r!.body.id as string);
        expect(acknowledged.length).toBeGreaterThan(0);

        const store = openStore(database.url);
        try {
          const stored = await store.db
            .selectFrom('action_items')
            .select('id')
            .where('description', 'like', 'during shutdown%')
            .execute();
          expect(stored.map((r) => r.id)).toEqual(expect.arrayContaining(acknowledged));
        } finally {
          await store.close();
        }
        const lines = logs.join('').trim().split('\n');
        expect(lines.length).toBeGreaterThan(0);
        expect(() => lines.map((line) => JSON.parse(line))).not.toThrow();
      } finally {
        await served.stop();
      }
    } finally {
      await database.drop();
    }
  });
});
