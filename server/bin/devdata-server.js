#!/usr/bin/env node
// The `devdata-server` command of a clone: `npm ci` links it at the repository root, where `npx devdata-server`
// finds it. The compiled CLI does not exist yet right after `npm ci` (npm links a bin only if its file exists),
// so this launcher builds the server when its output is missing or older than its sources, then runs it.

// Checked before anything loads: the native SQLite module built for Node 24 can crash an older Node outright.
const nodeMajor = Number(process.versions.node.split('.')[0]);
if (nodeMajor < 24) {
  console.error(
    `devdata-server needs Node.js 24 or newer; this is Node.js ${process.versions.node} (${process.execPath}). ` +
      'Put Node.js 24 first on PATH (README, "Quick start" step 1), then run the same command again.',
  );
  process.exit(1);
}

const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const serverDir = join(__dirname, '..');
const cli = join(serverDir, 'dist', 'cli.js');

function newestSourceChange() {
  let newest = statSync(join(serverDir, 'tsconfig.json')).mtimeMs;
  for (const entry of readdirSync(join(serverDir, 'src'), { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

const built = existsSync(cli);
if (!built || statSync(cli).mtimeMs < newestSourceChange()) {
  let tsc;
  try {
    tsc = require.resolve('typescript/bin/tsc', { paths: [serverDir] });
  } catch {
    console.error(
      'devdata-server is not built and TypeScript is missing: run `npm ci` in the repository first',
    );
    process.exit(1);
  }
  // A clone's first run has no build to be older than: said as it is, not as a change since a build never made.
  console.error(
    built
      ? 'Building devdata-server (its sources changed since the last build)...'
      : 'Building devdata-server (not built yet: the first run after `npm ci`)...',
  );
  const build = spawnSync(process.execPath, [tsc, '-p', join(serverDir, 'tsconfig.json')], {
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

require(cli);
