// The server manual's commands, run exactly as written from the repository root (where `npm ci` links the
// `devdata-server` command for npx). Each shell block gets its own database, redirected into a temporary
// folder through DEVDATA_DATABASE so the repository stays clean; its port comes from DEVDATA_PORT.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../helpers/ports';

const REPO = resolve(__dirname, '../..');
const MANUAL = join(REPO, 'server', 'README.md');

/** The `npx devdata-server …` lines of each bash block, comments dropped. */
function commandBlocks(markdown: string): string[][] {
  return [...markdown.matchAll(/```(?:bash|sh)\n([\s\S]*?)```/g)]
    .map(([, body]) =>
      body
        .split('\n')
        .map((line) => line.replace(/\s+#.*$/, '').trim())
        .filter((line) => line.startsWith('npx devdata-server')),
    )
    .filter((lines) => lines.length > 0);
}

const blocks = commandBlocks(readFileSync(MANUAL, 'utf8'));

describe('the server manual, run as written', () => {
  it('has the commands this test runs', () => {
    const commands = blocks.flat().map((line) => line.split(/\s+/)[2]);
    expect(commands).toEqual(expect.arrayContaining(['start', 'init', 'seed', 'serve', '--version']));
  });

  it.each(blocks.map((lines) => [lines.join(' && '), lines]))('%s', async (_name, lines) => {
    const dir = mkdtempSync(join(tmpdir(), 'devdata-readme-'));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DEVDATA_DATABASE: `sqlite:${join(dir, 'devdata.sqlite')}`,
      DEVDATA_PORT: String(port),
      DEVDATA_LOG_LEVEL: 'warn',
    };
    let developerKey: string | undefined;
    try {
      for (const line of lines) {
        // --no: npx runs the workspace's own command, and never fetches a package of that name instead ("--"
        // ends npx's own options, so the command's --version is its own).
        const args = ['--no', '--', ...line.split(/\s+/).slice(1)];
        const command = args[3];
        if (command !== 'start' && command !== 'serve') {
          const result = spawnSync('npx', args, { cwd: REPO, env, encoding: 'utf8', timeout: 60_000 });
          expect({ line, status: result.status, stderr: result.stderr }).toMatchObject({ status: 0 });
          if (command === '--version')
            expect(result.stdout.trim()).toBe(
              JSON.parse(readFileSync(join(REPO, 'server/package.json'), 'utf8')).version,
            );
          developerKey = /developer_key: (\S+)/.exec(result.stdout)?.[1] ?? developerKey;
          continue;
        }
        // A serving command runs until stopped: check it serves the API to the key it or init printed.
        const child = spawn('npx', args, {
          cwd: REPO,
          env,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout!.on('data', (chunk) => (output += chunk));
        child.stderr!.on('data', (chunk) => (output += chunk));
        const exited = new Promise<number | null>((r) => child.on('exit', r));
        try {
          for (let i = 0; ; i += 1) {
            if (child.exitCode !== null || i > 600) throw new Error(`${line} did not come up:\n${output}`);
            const key = /Developer key:\s+(\S+)/.exec(output)?.[1] ?? developerKey;
            const ready = await fetch(`http://127.0.0.1:${port}/healthz`).then(
              async (r) => (await r.text(), r.ok),
              () => false,
            );
            if (ready && key && (command === 'serve' || output.includes('Webhook secret:'))) {
              const items = await fetch(`http://127.0.0.1:${port}/v1/dev/user/action-items`, {
                headers: { authorization: `Bearer ${key}` },
              });
              expect({ line, status: items.status }).toEqual({ line, status: 200 });
              expect(((await items.json()) as unknown[]).length).toBeGreaterThan(0); // the demo data is there
              break;
            }
            await new Promise((r) => setTimeout(r, 100));
          }
        } finally {
          process.kill(-child.pid!, 'SIGTERM');
          await exited;
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the published README', () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const repository = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'))
    .repository.url.replace(/^git\+/, '')
    .replace(/\.git$/, '');
  // npm shows the README without the repository beside it: files are linked by their repository URL.
  const linked = [...readme.matchAll(new RegExp(`${repository}/blob/main/([^)\\s#]+)`, 'g'))].map(
    ([, path]) => path,
  );

  it('links the server manual and every example workflow by repository URL, each to a file that exists', () => {
    expect(linked).toContain('server/README.md');
    const examples = readdirSync(join(REPO, 'examples')).filter((file) => file.endsWith('.json'));
    expect(examples.length).toBeGreaterThan(0);
    expect(linked).toEqual(expect.arrayContaining(examples.map((file) => `examples/${file}`)));
    for (const path of linked)
      expect({ path, exists: existsSync(join(REPO, path)) }).toEqual({ path, exists: true });
  });

  it('says which credentials `npm run demo` creates in n8n, and that the examples needing another lack it', () => {
    // The demo's credentials, as test/e2e/harness.ts gives them to n8n: `name: '…', type: '…'`.
    const harness = readFileSync(join(REPO, 'test/e2e/harness.ts'), 'utf8');
    const body = /export function n8nCredentials\([\s\S]*?\n}\n/.exec(harness)?.[0] ?? '';
    const created = [...body.matchAll(/name: '([^']+)',\s*type: '([^']+)'/g)].map(([, name, type]) => ({
      name,
      type,
    }));
    expect(created.length).toBeGreaterThan(0);
    const text = readme.replace(/\s+/g, ' ');
    const said = text.slice(text.indexOf('`npm run demo` imports them all'), text.indexOf('| file |'));
    expect(said).toContain(`${['no', 'one', 'two', 'three'][created.length]} credentials`);
    for (const { name } of created) expect(said).toContain(`*${name}*`);
    // A credential type an example uses and the demo does not create is named as one the user brings.
    const examples = readdirSync(join(REPO, 'examples')).filter((file) => file.endsWith('.json'));
    const used = new Set(
      examples.flatMap((file) =>
        (
          JSON.parse(readFileSync(join(REPO, 'examples', file), 'utf8')) as {
            nodes: Array<{ credentials?: Record<string, unknown> }>;
          }
        ).nodes.flatMap((node) => Object.keys(node.credentials ?? {})),
      ),
    );
    const missing = [...used].filter((type) => !created.some((credential) => credential.type === type));
    expect(missing).toEqual(['postgres']);
    expect(said).toMatch(
      /it creates no other, so the PostgreSQL sync needs a \*Postgres\* credential of yours/,
    );
  });

  it('leaves the server to its manual: no server commands, no paths only a clone has', () => {
    expect(readme).not.toMatch(/npx devdata-server|devdata-server (init|seed|serve)/);
    expect(readme).not.toMatch(/\]\((?!https?:|#)/); // no relative links
  });
});

describe('the server manual, beside the API document', () => {
  const manual = readFileSync(MANUAL, 'utf8').replace(/\s+/g, ' ');
  const document = JSON.parse(readFileSync(join(__dirname, 'openapi.snapshot.json'), 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };

  it('names every route of the admin and app APIs under Endpoints, with its method', () => {
    const endpoints = manual.slice(manual.indexOf('## Endpoints'), manual.indexOf('## Conventions'));
    // Written `POST /v1/admin/users` (or with its query, `…?uid=&message=`), or with several methods:
    // `GET`/`PUT`/`DELETE /v2/integrations/…`.
    const written = new Set(
      [...endpoints.matchAll(/((?:[A-Z]+`\/`)*[A-Z]+) (\/v[12]\/[^`\s?]+)[`?]/g)].flatMap(
        ([, methods, path]) => methods.split('`/`').map((method) => `${method} ${path}`),
      ),
    );
    const routes = Object.entries(document.paths)
      .filter(([path]) => /^\/(v1\/admin|v2\/integrations)\//.test(path))
      .flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
      );
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.filter((route) => !written.has(route))).toEqual([]);
  });
});

describe('CONTRIBUTING.md, beside the tests, the demo and the benchmarks', () => {
  /** The .ts files under `dir`, its subfolders' too. */
  const sources = (dir: string): string[] =>
    readdirSync(join(REPO, dir), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => join(REPO, dir, file));
  // Not ours to document: the shell's, and n8n's own setting, which the node suites quiet unless it is set.
  const NOT_OURS = new Set(['PATH', 'N8N_LOG_LEVEL']);

  it('names every environment variable they read', () => {
    const read = new Set(
      [...sources('test'), ...sources('bench')].flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map(([, name]) => name),
      ),
    );
    expect(read.size).toBeGreaterThan(10);
    const contributing = readFileSync(join(REPO, 'CONTRIBUTING.md'), 'utf8');
    expect([...read].filter((name) => !NOT_OURS.has(name) && !contributing.includes(name))).toEqual([]);
  });
});
