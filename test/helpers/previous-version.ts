// The devdata-server of the previous landed version, built from this clone's git history, so an upgrade test can
// write a database with it and then open that database with the current server. Built once per machine into
// node_modules/.cache/devdata-previous/<commit>/ and reused; it runs on the repository's own installed
// dependencies (the previous version's server/package.json must ask for the same ones).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { runCli, serveCli, type ServeProcess } from './cli';

/**
 * The last commit CI passed: the version a user upgrades from. When a release lands (its CI green), set this to
 * that release's commit (`git rev-parse --short HEAD` on it), so every migration added after it is tested on a
 * database that version wrote. The commit must be in the clone's history (not cut off by a shallow clone).
 */
export const PREVIOUS_VERSION = '25e8b64';

const ROOT = join(__dirname, '../..');
const CACHE = join(ROOT, 'node_modules/.cache/devdata-previous');
/** Half-made builds older than this are left over from an interrupted run, not another run still building. */
const STALE_BUILD_MS = 60 * 60_000;

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The full commit of PREVIOUS_VERSION, or an error saying why this clone does not have it. */
function previousCommit(): string {
  const found = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${PREVIOUS_VERSION}^{commit}`], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (found.status === 0) return found.stdout.trim();
  const shallow = git(['rev-parse', '--is-shallow-repository']) === 'true';
  throw new Error(
    `The previous landed version ${PREVIOUS_VERSION} (test/helpers/previous-version.ts) is not in this clone` +
      (shallow
        ? ': the clone is shallow. Fetch the history first: git fetch --unshallow'
        : '. Fetch it (git fetch origin), or move PREVIOUS_VERSION to a landed commit this clone has.'),
  );
}

/** A relative symlink at `link` to `target`, so the cache keeps working if the clone is moved. */
function linkTo(target: string, link: string) {
  symlinkSync(relative(dirname(link), target), link, 'dir');
}

/**
 * The path of the previous version's compiled CLI (`server/dist/cli.js`), building it first when this machine has
 * not. The build happens in a temporary folder renamed into place at the end, so an interrupted build leaves
 * nothing that a later run would take for a finished one.
 */
export function previousVersionCli(): string {
  const commit = previousCommit();
  const built = join(CACHE, commit);
  const cli = join(built, 'server/dist/cli.js');
  if (existsSync(cli)) return cli;

  mkdirSync(CACHE, { recursive: true });
  for (const name of readdirSync(CACHE)) {
    const path = join(CACHE, name);
    if (name.includes('.building-') && Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS) {
      rmSync(path, { recursive: true, force: true });
    }
  }
  const building = mkdtempSync(join(CACHE, `${commit}.building-`));
  try {
    const archive = execFileSync('git', ['archive', '--format=tar', commit, 'server'], {
      cwd: ROOT,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', building], { input: archive });
    // Imports resolve as in the clone: server/node_modules holds the server's own versions (zod 4, …), the root
    // node_modules the rest (hoisted packages, @types/node for the compiler).
    linkTo(join(ROOT, 'server/node_modules'), join(building, 'server/node_modules'));
    linkTo(join(ROOT, 'node_modules'), join(building, 'node_modules'));
    execFileSync(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '-p', join(building, 'server/tsconfig.json')],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      renameSync(building, built);
    } catch (error) {
      // Another run finished the same build first: use its copy.
      if (!existsSync(cli)) throw error;
      rmSync(building, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    const output = (error as { stdout?: Buffer }).stdout?.toString() ?? '';
    throw new Error(`Building the previous version ${PREVIOUS_VERSION} failed: ${String(error)}\n${output}`);
  }
  return cli;
}

/** What the previous version's `init --json` printed: the credentials it made. */
export interface PreviousInit {
  user_id: string;
  developer_key: string;
  admin_token: string;
  app_id: string;
  app_secret: string;
  webhook_secret: string;
}

/** Runs the previous version's `init` on `databaseUrl` (migrating it to that version's schema). */
export function previousInit(databaseUrl: string): PreviousInit {
  const result = runCli(['init', '--database', databaseUrl, '--json'], previousVersionCli());
  if (result.status !== 0) throw new Error(`previous init failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as PreviousInit;
}

/** Runs the previous version's `seed` (its demo data for init's user) on `databaseUrl`. */
export function previousSeed(databaseUrl: string): void {
  const result = runCli(['seed', '--database', databaseUrl], previousVersionCli());
  if (result.status !== 0) throw new Error(`previous seed failed (${result.status}): ${result.stderr}`);
}

/** Starts the previous version's `serve` on `databaseUrl`, as serveCli starts the current one. */
export function previousServe(databaseUrl: string, env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  return serveCli(databaseUrl, env, previousVersionCli());
}
