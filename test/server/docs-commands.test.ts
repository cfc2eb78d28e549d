// The curl commands of docs/ and the server manual, run as written (by bash, with the variables `npm start` prints
// in its `export` lines) against a real server: every one answers, and with no error body.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const REPO = resolve(__dirname, '../..');
const pages = [
  'server/README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

/** Each bash block of the page that runs curl, as its lines, and the number of curl commands in it. */
const blocks = pages.flatMap((page) =>
  [...readFileSync(join(REPO, page), 'utf8').matchAll(/^ *```bash\n([\s\S]*?)^ *```/gm)]
    .map(([, body]) => body)
    .filter((body) => /^\s*curl /m.test(body))
    .map((body) => ({ page, body, curls: body.match(/^\s*curl /gm)!.length })),
);

describe(`the docs' curl commands, run as written, on ${DIALECTS[0]}`, () => {
  const server = forSuite(() => startServer(DIALECTS[0]));

  it('finds the commands', () => {
    expect(blocks.map(({ page }) => page)).toEqual(
      expect.arrayContaining(['server/README.md', 'docs/proactive-notifications.md']),
    );
  });

  /** Runs `script` with bash, with the variables `npm start` prints in its `export` lines. */
  async function runBash(script: string) {
    const { init } = server;
    // Not spawnSync: the server answers in this process.
    const child = spawn('bash', ['--noprofile', '--norc', '-c', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        DEVDATA: server.baseUrl,
        USER_ID: init.user_id,
        DEV_KEY: init.developer_key,
        APP_ID: init.app_id,
        APP_SECRET: init.app_secret,
        WEBHOOK_SECRET: init.webhook_secret,
        ADMIN: init.admin_token,
      },
    });
    const result = { stdout: '', stderr: '', status: null as number | null };
    child.stdout.on('data', (chunk) => (result.stdout += chunk));
    child.stderr.on('data', (chunk) => (result.stderr += chunk));
    result.status = await new Promise<number | null>((done) => child.on('close', done));
    return result;
  }

  it.each(blocks.map((block) => [`${block.page}: ${block.body.split('\n')[0]}`, block]))(
    '%s',
    async (_name, { body, curls }) => {
      // Each command's answer on a line of its own, with its status.
      const result = await runBash(body.replace(/^(\s*curl )/gm, `echo; $1-w '\\n%{http_code}\\n' `));
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
      const statuses = result.stdout.split('\n').filter((line) => /^\d{3}$/.test(line));
      expect({ statuses, output: result.stdout }).toEqual({
        statuses: Array<string>(curls).fill(expect.stringMatching(/^2\d\d$/)),
        output: expect.not.stringContaining('"detail"'),
      });
    },
  );

  it("installs the app the admin API's block makes, not the one npm start made", async () => {
    // Pasted whole in a terminal holding npm start's exports, the install must not go to that app (it would
    // replace the scopes its user granted): the block takes the new app's id and secret itself.
    const block = blocks.find(({ body }) => body.includes('/v1/admin/apps/$APP_ID/installs'));
    expect(block?.page).toBe('docs/proactive-notifications.md');
    const result = await runBash(`${block!.body}\necho; echo "$APP_ID $APP_SECRET"`);
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    const [created, install, exported] = result.stdout.trim().split('\n');
    const app = JSON.parse(created) as { id: string; app_secret: string };
    expect(app.id).not.toBe(server.init.app_id);
    expect(JSON.parse(install)).toMatchObject({ app_id: app.id, user_id: server.init.user_id });
    expect(exported).toBe(`${app.id} ${app.app_secret}`);
  });
});
