import { ensureN8n, N8N_1, N8N_2 } from './harness';

/**
 * Installs both n8n releases the suites run (once per machine, side by side) before any suite starts, so the
 * suites that run in parallel do not each wait for, or race over, the same install.
 */
export default async function installN8n(): Promise<void> {
  await Promise.all([N8N_2, N8N_1].map((release) => ensureN8n(release, (line) => console.log(line))));
}
