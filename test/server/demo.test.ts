// `npm run demo` with a port already taken: it refuses before it starts or installs anything, naming the port and
// the fix, instead of reporting a demo whose key another server refuses. A port setting that is no port, or the same
// port for both servers, is refused the same way, naming the settings. Runs the demo's own startup (Node runs
// test/e2e/demo.ts as `npm run demo` does); the n8n cache it would install into is an empty folder that must stay
// empty.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../helpers/ports';

const REPO = resolve(__dirname, '../..');

/** Listens on 127.0.0.1:port, as `npm start`'s server does; a port someone else holds already is taken too. */
function occupy(port: number): Promise<Server | undefined> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolvePromise(undefined) : reject(error),
    );
    server.listen(port, '127.0.0.1', () => resolvePromise(server));
  });
}

/** The demo run from `cwd` (the folder its .demo/ is in), the repository by default. */
function runDemo(env: NodeJS.ProcessEnv, cwd = REPO) {
  const cache = mkdtempSync(join(tmpdir(), 'devdata-demo-cache-'));
  try {
    const result = spawnSync(
      process.execPath,
      ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON', join(REPO, 'test/e2e/demo.ts')],
      {
        cwd,
        env: {
          ...process.env,
          DEMO_DEVDATA_PORT: undefined,
          DEMO_N8N_PORT: undefined,
          DEMO_N8N_EMAIL: undefined,
          DEMO_N8N_PASSWORD: undefined,
          ...env,
          N8N_E2E_CACHE: join(cache, 'n8n'),
        },
        encoding: 'utf8',
        timeout: 50_000,
      },
    );
    return { status: result.status, stdout: result.stdout, stderr: result.stderr, cache: readdirSync(cache) };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

describe('npm run demo with a port already taken', () => {
  it.each([
    ['devdata-server', 'DEMO_DEVDATA_PORT'],
    ['n8n', 'DEMO_N8N_PORT'],
  ])('refuses when the port for %s is taken, naming it and the fix', async (what, variable) => {
    const otherVariable = variable === 'DEMO_N8N_PORT' ? 'DEMO_DEVDATA_PORT' : 'DEMO_N8N_PORT';
    // The other server's port is the one right above (the first a suggestion would try): it must not be suggested.
    // Nothing holds it for the test, so another process of a busy machine may take it meanwhile: then the demo
    // rightly names that port too (alone or with this one), and the test tries again with other ports.
    let taken = 0;
    let other = 0;
    let server: Awaited<ReturnType<typeof occupy>> | undefined;
    let result!: ReturnType<typeof runDemo>;
    try {
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        server?.close();
        taken = await freePort();
        other = taken < 65535 ? taken + 1 : taken - 1;
        server = await occupy(taken);
        result = runDemo({
          [variable]: String(taken),
          [otherVariable]: String(other),
          DEMO_N8N_EMAIL: 'someone@example.com',
        });
        if (
          !new RegExp(`^(Port ${other} is|Ports \\d+ and \\d+ are both) already in use`).test(result.stderr)
        )
          break;
      }
      expect(result).toEqual({
        status: 1,
        stdout: '',
        stderr: expect.stringContaining(
          `Port ${taken} is already in use, so the demo cannot start ${what} there.`,
        ),
        cache: [],
      });
      const suggested = Number(new RegExp(`free port: .*\\b${variable}=(\\d+)`).exec(result.stderr)?.[1]);
      expect([taken, other]).not.toContain(suggested);
      const ports = { [variable]: suggested, [otherVariable]: other };
      expect(result.stderr).toContain(
        `or run the demo on a free port: DEMO_DEVDATA_PORT=${ports.DEMO_DEVDATA_PORT} ` +
          `DEMO_N8N_PORT=${ports.DEMO_N8N_PORT} DEMO_N8N_EMAIL=someone@example.com npm run demo\n`,
      );
    } finally {
      server?.close();
    }
  });

  it('refuses when both ports are taken, naming both and suggesting a free one for each', async () => {
    // With only the first named, the user who moved it would be refused again for the second.
    const servers: Array<Awaited<ReturnType<typeof occupy>>> = [];
    try {
      const devdataPort = await freePort();
      servers.push(await occupy(devdataPort));
      const n8nPort = await freePort();
      servers.push(await occupy(n8nPort));
      const result = runDemo({ DEMO_DEVDATA_PORT: String(devdataPort), DEMO_N8N_PORT: String(n8nPort) });
      expect(result).toEqual({
        status: 1,
        stdout: '',
        stderr: expect.stringContaining(
          `Ports ${devdataPort} and ${n8nPort} are both already in use, so the demo cannot start ` +
            `devdata-server on ${devdataPort} nor n8n on ${n8nPort}.\n`,
        ),
        cache: [],
      });
      expect(result.stderr).toContain('npm start');
      expect(result.stderr).toContain(`sport = :${devdataPort} or sport = :${n8nPort}`);
      const [, devdataFree, n8nFree] =
        /or run the demo on two free ports: DEMO_DEVDATA_PORT=(\d+) DEMO_N8N_PORT=(\d+) npm run demo\n/
          .exec(result.stderr)
          ?.map(Number) ?? [];
      expect(devdataFree).toBeGreaterThan(0);
      expect(n8nFree).toBeGreaterThan(0);
      expect([devdataPort, n8nPort, n8nFree]).not.toContain(devdataFree);
      expect([devdataPort, n8nPort]).not.toContain(n8nFree);
    } finally {
      for (const server of servers) server?.close();
    }
  });

  it('refuses the default port 8080, taken for example by `npm start`', async () => {
    const server = await occupy(8080);
    try {
      const n8nPort = await freePort();
      const result = runDemo({ DEMO_DEVDATA_PORT: undefined, DEMO_N8N_PORT: String(n8nPort) });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('Port 8080 is already in use');
      expect(result.stderr).toContain('npm start');
      expect(result.stderr).toContain(`DEMO_DEVDATA_PORT=8081 DEMO_N8N_PORT=${n8nPort} npm run demo`);
      expect(result.cache).toEqual([]);
    } finally {
      server?.close();
    }
  });
});

describe('npm run demo with a port setting it cannot use', () => {
  it.each([
    ['DEMO_DEVDATA_PORT', 'abc'],
    ['DEMO_DEVDATA_PORT', '99999'],
    ['DEMO_N8N_PORT', '0'],
    ['DEMO_N8N_PORT', '1e3'],
    ['DEMO_N8N_PORT', ' 5678'],
  ])('refuses %s=%j, naming the variable, its value and the form it takes', (variable, value) => {
    expect(runDemo({ [variable]: value })).toEqual({
      status: 1,
      stdout: '',
      stderr: `${variable} must be a port number from 1 to 65535, got "${value}"\n`,
      cache: [],
    });
  });

  it('refuses the same port for devdata-server and n8n, naming both, and suggests another for n8n', async () => {
    const port = await freePort();
    const result = runDemo({ DEMO_DEVDATA_PORT: String(port), DEMO_N8N_PORT: String(port) });
    expect(result).toEqual({
      status: 1,
      stdout: '',
      stderr: expect.stringContaining(
        `DEMO_DEVDATA_PORT=${port} and DEMO_N8N_PORT=${port} are the same port, and the demo needs one for ` +
          'devdata-server and another for n8n.\n',
      ),
      cache: [],
    });
    const suggested = Number(
      /Give them different ports: DEMO_DEVDATA_PORT=\d+ DEMO_N8N_PORT=(\d+) npm run demo\n/.exec(
        result.stderr,
      )?.[1],
    );
    expect(result.stderr).toContain(
      `Give them different ports: DEMO_DEVDATA_PORT=${port} DEMO_N8N_PORT=${suggested} npm run demo\n`,
    );
    expect(suggested).toBeGreaterThan(port);
  });
});

describe('npm run demo while another demo of the clone runs', () => {
  it("refuses before it builds or touches the other demo's files, naming its process and how to go on", async () => {
    const clone = mkdtempSync(join(tmpdir(), 'devdata-demo-clone-'));
    try {
      // The running demo: its folder, with its process id (this test's, which runs) and a file of its own.
      mkdirSync(join(clone, '.demo'));
      writeFileSync(join(clone, '.demo', 'demo.pid'), String(process.pid));
      writeFileSync(join(clone, '.demo', 'devdata.sqlite'), "the running demo's database");
      const result = runDemo(
        { DEMO_DEVDATA_PORT: String(await freePort()), DEMO_N8N_PORT: String(await freePort()) },
        clone,
      );
      expect(result).toEqual({
        status: 1,
        stdout: '',
        stderr: expect.stringContaining(
          `Another \`npm run demo\` of this clone is running (process ${process.pid}), with its files in ` +
            `${join(clone, '.demo')}, which this one would delete.\nStop it first (Ctrl+C in its terminal)`,
        ),
        cache: [],
      });
      expect(readdirSync(join(clone, '.demo')).sort()).toEqual(['demo.pid', 'devdata.sqlite']);
      expect(readFileSync(join(clone, '.demo', 'devdata.sqlite'), 'utf8')).toBe(
        "the running demo's database",
      );
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});

describe('what npm run demo prints to try', () => {
  it('names n8n 2.x\'s button, "Execute workflow", in each step that runs a workflow', () => {
    // Printed only once n8n runs: read from the demo's source, as it prints it.
    const source = readFileSync(join(REPO, 'test/e2e/demo.ts'), 'utf8');
    const steps = source
      .slice(source.indexOf('What to try'), source.indexOf('Logs:'))
      .split(/\n\s+(?=\d\. )/);
    const opening = steps.filter((step) => /^\d\. Open "/.test(step));
    expect(opening).toHaveLength(2);
    for (const step of opening) {
      expect(step).toContain('click "Execute workflow"');
      expect(step).not.toMatch(/"Run"|Test workflow|Execute Workflow/);
    }
  });
});
