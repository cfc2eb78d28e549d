// DEVDATA_KEY_PREFIX through the built CLI as an operator uses it: init, start and serve make keys with the prefix
// set, a prefix of the wrong shape stops the command before it writes anything, and keys made under an earlier
// prefix keep working (a key is found by the hash of all of it).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyPrefixSetting } from '../../server/src/config';
import { serveCli, type ServeProcess } from '../helpers/cli';
import { client } from '../helpers/http';
import { freePort } from '../helpers/ports';
import { createDatabase, DIALECTS } from '../helpers/server';

const CLI = join(__dirname, '../../server/dist/cli.js');

/** The environment without the DEVDATA_* settings of whoever runs the tests, plus `extra`. */
function envWith(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('DEVDATA_')),
  );
  return { ...env, DEVDATA_LOG_LEVEL: 'warn', DEVDATA_MAX_EVENT_LOOP_DELAY_MS: '0', ...extra };
}

function cli(args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    cwd,
    env: envWith(env),
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const answers = async (baseUrl: string, key: string) =>
  (await client(baseUrl, key).get('/v1/dev/user/memories', { limit: 1 })).status;

describe('DEVDATA_KEY_PREFIX of the wrong shape', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'devdata-prefix-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['Omi_dev_', 'capitals'],
    ['omi_dev', 'no closing underscore'],
    ['omi-dev_', 'a hyphen'],
    ['_dev_', 'a leading underscore'],
    ['omi__dev_', 'an empty word'],
    ['a_very_long_prefix_', 'more than 16 characters'],
  ])('%s (%s) stops init, start and serve, naming the setting, before anything is written', (prefix) => {
    for (const command of ['init', 'start', 'serve']) {
      const result = cli([command], { DEVDATA_KEY_PREFIX: prefix }, dir);
      expect({ command, status: result.status }).toEqual({ command, status: 1 });
      expect(result.stderr).toContain(`DEVDATA_KEY_PREFIX must be lowercase letters and digits`);
      expect(result.stderr).toContain(`got "${prefix}"`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(join(dir, 'devdata.sqlite'))).toBe(false);
      expect(existsSync(join(dir, 'devdata.credentials.json'))).toBe(false);
    }
  });

  it('refuses the prefix of another kind of secret', () => {
    for (const prefix of ['sk_', 'whsec_', 'svc_admin_']) {
      const result = cli(['init'], { DEVDATA_KEY_PREFIX: prefix }, dir);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`DEVDATA_KEY_PREFIX must differ from ${prefix}`);
      expect(existsSync(join(dir, 'devdata.sqlite'))).toBe(false);
    }
  });

  it('refuses a prefix that starts with the prefix of another kind of secret, naming it and why', () => {
    for (const [prefix, taken] of [
      ['sk_live_', 'sk_'],
      ['whsec_x_', 'whsec_'],
      ['svc_admin_x_', 'svc_admin_'],
    ]) {
      const result = cli(['init'], { DEVDATA_KEY_PREFIX: prefix }, dir);
      expect({ prefix, status: result.status }).toEqual({ prefix, status: 1 });
      expect(result.stderr).toContain(
        `DEVDATA_KEY_PREFIX must not start with ${taken}, the prefix of another kind of secret`,
      );
      expect(result.stderr).toContain(`got "${prefix}"`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(join(dir, 'devdata.sqlite'))).toBe(false);
      expect(existsSync(join(dir, 'devdata.credentials.json'))).toBe(false);
    }
    // Plain prefixes, those merely sharing a first word with another secret's among them, are kept.
    for (const prefix of ['svc_dev_', 'omi_dev_', 'acme_', 'sky_', 'whs_']) {
      expect(keyPrefixSetting(prefix)).toBe(prefix);
    }
  });

  it("refuses a prefix that another secret's starts with: that secret would read as a developer key", () => {
    const result = cli(['init'], { DEVDATA_KEY_PREFIX: 'svc_' }, dir);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'DEVDATA_KEY_PREFIX must not be the start of svc_admin_, the prefix of another kind of secret',
    );
    expect(result.stderr).toContain('got "svc_"');
    expect(existsSync(join(dir, 'devdata.sqlite'))).toBe(false);
  });
});

describe.each(DIALECTS)('a prefix change on %s', (dialect) => {
  let database: { url: string; drop(): Promise<void> };
  let server: ServeProcess | undefined;
  beforeAll(async () => {
    database = await createDatabase(dialect);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('keeps the keys made under the earlier prefix working, and makes new ones with the new prefix', async () => {
    const init = cli(['init', '--database', database.url, '--json'], {});
    expect(init.status).toBe(0);
    const { developer_key: oldKey, admin_token: adminToken, user_id: userId } = JSON.parse(init.stdout);
    expect(oldKey).toMatch(/^svc_dev_[0-9a-f]{32}$/);

    server = await serveCli(database.url, { DEVDATA_KEY_PREFIX: 'omi_dev_' });
    expect(await answers(server.baseUrl, oldKey)).toBe(200);
    const developer = await client(server.baseUrl, oldKey).post('/v1/dev/keys', {
      name: 'new prefix',
      scopes: ['memories:read'],
    });
    expect(developer.status).toBe(200);
    // The shape the real service's own CLI checks before it logs in: its prefix, then 32 hex digits.
    expect(developer.body.key).toMatch(/^omi_dev_[0-9a-f]{32}$/);
    expect(developer.body.key_prefix).toMatch(/^omi_dev_[0-9a-f]{4}\.\.\.[0-9a-f]{4}$/);
    const admin = await client(server.baseUrl, adminToken).post(`/v1/admin/users/${userId}/keys`, {
      name: 'admin, new prefix',
    });
    expect(admin.body.key).toMatch(/^omi_dev_[0-9a-f]{32}$/);
    expect(await answers(server.baseUrl, developer.body.key)).toBe(200);
    expect(await answers(server.baseUrl, admin.body.key)).toBe(200);
    await server.stop();

    // And back to the default: every key made so far still answers.
    server = await serveCli(database.url);
    for (const key of [oldKey, developer.body.key, admin.body.key])
      expect(await answers(server.baseUrl, key)).toBe(200);
    const listed = await client(server.baseUrl, oldKey).get('/v1/dev/keys');
    expect(listed.body.map((key: { key_prefix: string }) => key.key_prefix.slice(0, 8)).sort()).toEqual([
      'omi_dev_',
      'omi_dev_',
      'svc_dev_',
    ]);
  });
});

it('start makes its first key with the prefix set', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'devdata-prefix-start-'));
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'start', '--port', String(port)], {
    cwd: dir,
    env: envWith({ DEVDATA_KEY_PREFIX: 'omi_dev_' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    while (!output.includes('Webhook secret:')) {
      if (child.exitCode !== null) throw new Error(`start did not come up:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const key = /Developer key:\s+(\S+)/.exec(output)![1];
    expect(key).toMatch(/^omi_dev_[0-9a-f]{32}$/);
    expect(await answers(`http://127.0.0.1:${port}`, key)).toBe(200);
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
});
