// `npm run demo` with a port already taken: it refuses before it starts or installs anything, naming the port and
// the fix, instead of reporting a demo whose key another server refuses. Runs the demo's own startup (Node runs
// test/e2e/demo.ts as `npm run demo` does); the n8n cache it would install into is an empty folder that must stay
// empty.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
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

function runDemo(env: NodeJS.ProcessEnv) {
  const cache = mkdtempSync(join(tmpdir(), 'devdata-demo-cache-'));
  try {
    const result = spawnSync(
      process.execPath,
      ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON', 'test/e2e/demo.ts'],
      {
        cwd: REPO,
        env: { ...process.env, ...env, N8N_E2E_CACHE: join(cache, 'n8n') },
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
    const taken = await freePort();
    const other = variable === 'DEMO_N8N_PORT' ? 'DEMO_DEVDATA_PORT' : 'DEMO_N8N_PORT';
    const server = await occupy(taken);
    try {
      const result = runDemo({ [variable]: String(taken), [other]: String(await freePort()) });
      expect(result).toEqual({
        status: 1,
        stdout: '',
        stderr: expect.stringContaining(
          `Port ${taken} is already in use, so the demo cannot start ${what} there.`,
        ),
        cache: [],
      });
      expect(result.stderr).toContain(`${variable}=${taken + 1} npm run demo`);
    } finally {
      server?.close();
    }
  });

  it('refuses the default port 8080, taken for example by `npm start`', async () => {
    const server = await occupy(8080);
    try {
      const result = runDemo({ DEMO_DEVDATA_PORT: undefined, DEMO_N8N_PORT: String(await freePort()) });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('Port 8080 is already in use');
      expect(result.stderr).toContain('npm start');
      expect(result.stderr).toContain('DEMO_DEVDATA_PORT=8081 npm run demo');
      expect(result.cache).toEqual([]);
    } finally {
      server?.close();
    }
  });
});
