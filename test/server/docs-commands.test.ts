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

  it.each(blocks.map((block) => [`${block.page}: ${block.body.split('\n')[0]}`, block]))(
    '%s',
    async (_name, { body, curls }) => {
      const { init } = server;
      // Each command's answer on a line of its own, with its status.
      const script = body.replace(/^(\s*curl )/gm, `echo; $1-w '\\n%{http_code}\\n' `);
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
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
      const statuses = result.stdout.split('\n').filter((line) => /^\d{3}$/.test(line));
      expect({ statuses, output: result.stdout }).toEqual({
        statuses: Array<string>(curls).fill(expect.stringMatching(/^2\d\d$/)),
        output: expect.not.stringContaining('"detail"'),
      });
    },
  );
});
