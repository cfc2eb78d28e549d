// The built devdata-server CLI as a self-hoster runs it: one-shot commands, and `serve` as its own process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const CLI = join(__dirname, '../../server/dist/cli.js');

export function runCli(args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface ServeProcess {
  baseUrl: string;
  child: ChildProcess;
  /** The JSON log lines written so far. */
  logs: string[];
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** Ends the process (SIGKILL if it is still running) and waits for it. */
  stop(): Promise<void>;
}

/** Starts `devdata-server serve` on a free port and waits until `/healthz` answers. */
export async function serveCli(databaseUrl: string, env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port), '--database', databaseUrl], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const logs: string[] = [];
  child.stdout!.on('data', (chunk) => logs.push(String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const served: ServeProcess = {
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    logs,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await waitForHealth(served);
  } catch (error) {
    await served.stop();
    throw error;
  }
  return served;
}

async function waitForHealth({ baseUrl, child }: ServeProcess) {
  for (let i = 0; i < 100; i += 1) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const health = await fetch(`${baseUrl}/healthz`);
      await health.text();
      if (health.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become healthy');
}
