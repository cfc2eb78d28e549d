// The built devdata-server CLI as a self-hoster runs it: one-shot commands, and `serve` as its own process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './ports';

export const CLI = join(__dirname, '../../server/dist/cli.js');

/** Runs a command of the CLI at `cli` (by default this clone's build) to its end. */
export function runCli(args: string[], cli = CLI) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface ServeProcess {
  baseUrl: string;
  child: ChildProcess;
  /** The JSON log lines written so far. */
  logs: string[];
  /** What it wrote to stderr so far. */
  stderr: string[];
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** Ends the process (SIGKILL if it is still running) and waits for it. */
  stop(): Promise<void>;
}

/** What serveCli sets unless `env` says otherwise. */
export const SERVE_CLI_ENV = { DEVDATA_MAX_EVENT_LOOP_DELAY_MS: '0' };

/**
 * Starts `devdata-server serve` on a free port and waits until `/healthz` answers. Load shedding is off unless
 * `env` sets DEVDATA_MAX_EVENT_LOOP_DELAY_MS: on a busy machine the server's own startup lags its event loop past
 * the default threshold, and would refuse the first requests of tests that are not about shedding. `cli` is the
 * CLI to run (by default this clone's build; the upgrade test passes the previous version's).
 */
export async function serveCli(
  databaseUrl: string,
  env: NodeJS.ProcessEnv = {},
  cli = CLI,
): Promise<ServeProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [cli, 'serve', '--port', String(port), '--database', databaseUrl], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...SERVE_CLI_ENV, ...env },
  });
  const logs: string[] = [];
  const stderr: string[] = [];
  child.stdout!.on('data', (chunk) => logs.push(String(chunk)));
  child.stderr!.on('data', (chunk) => stderr.push(String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const served: ServeProcess = {
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    logs,
    stderr,
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

async function waitForHealth({ baseUrl, child, stderr }: ServeProcess) {
  // Up to 30 s: several processes may be starting at once on a shared machine.
  for (let i = 0; i < 300; i += 1) {
    // What it said is the reason (a busy port, a database it could not open): a failure names it.
    if (child.exitCode !== null)
      throw new Error(`server exited with ${child.exitCode}: ${stderr.join('').trim()}`);
    try {
      const health = await fetch(`${baseUrl}/healthz`);
      await health.text();
      if (health.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not become healthy within 30 s: ${stderr.join('').trim()}`);
}
