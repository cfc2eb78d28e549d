// `npm run bench [-- group…]`: runs the benchmark groups (all of them by default) and writes each group's
// figures into bench/RESULTS.md between its markers, with the date, the command and the machine. Every
// figure is a ratio measured within one run, so runs on a busy or another machine stay comparable.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { events } from './events';
import { hot } from './hot';
import { instances } from './instances';
import { machine } from './lib';
import { nodeInN8n } from './node';
import { pagination } from './pagination';
import { proactive } from './proactive';
import { search } from './search';
import { trigger } from './trigger';
import { writes } from './writes';

const GROUPS: Record<string, { title: string; run: () => Promise<string> }> = {
  hot: { title: '1. Hot path against bare node:http (and 6. server RSS)', run: () => hot() },
  pagination: { title: '2. Deep pagination over 1,000,000 screen-activity rows', run: pagination },
  writes: { title: '3. Writes: 20 batches against 1000 single POSTs', run: writes },
  node: { title: '4. The node in n8n-core', run: nodeInN8n },
  proactive: { title: '5. The proactive pipeline: ingest to push', run: proactive },
  instances: { title: '7. Several instances: a push and a revocation from one to the other', run: instances },
  search: {
    title: '9. Search against a GET by id over 10,000 conversations and 10,000 memories',
    run: search,
  },
  events: {
    title: '8. Event webhooks: a change to its event, alone and beside bad subscriptions',
    run: events,
  },
  trigger: {
    title: '10. The DevData Trigger in n8n 2.41.1: a change to its execution, and an outage',
    run: trigger,
  },
};

const RESULTS = join(__dirname, 'RESULTS.md');
const HEADER = `# Benchmark results

Written by \`npm run bench\` (all groups) or \`npm run bench -- <group>…\` (${Object.keys(GROUPS).join(', ')});
each group replaces only its own section. Hand-written notes (profiles, before/after of each change) follow
the generated sections.
`;

/** Puts `body` between the markers of `group` in `text`, appending the section if it is not there yet. */
function replaceSection(text: string, group: string, body: string): string {
  const start = `<!-- bench:${group} -->`;
  const end = `<!-- /bench:${group} -->`;
  const section = `${start}\n${body}\n${end}`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from >= 0 && to > from) return text.slice(0, from) + section + text.slice(to + end.length);
  const notes = text.indexOf('\n## Notes');
  return notes >= 0
    ? `${text.slice(0, notes)}\n${section}\n${text.slice(notes)}`
    : `${text.trimEnd()}\n\n${section}\n`;
}

async function main() {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((g) => !(g in GROUPS));
  if (unknown.length > 0)
    throw new Error(`Unknown group ${unknown.join(', ')}; groups: ${Object.keys(GROUPS).join(', ')}`);
  const groups = asked.length > 0 ? asked : Object.keys(GROUPS);
  // The BENCH_* settings in effect belong to the command: figures read with other rounds or sizes differ.
  const settings = Object.keys(process.env)
    .filter((name) => name.startsWith('BENCH_'))
    .sort()
    .map((name) => `${name}=${process.env[name]} `)
    .join('');
  const command = `${settings}npm run bench${asked.length > 0 ? ` -- ${asked.join(' ')}` : ''}`;
  for (const group of groups) {
    const { title, run } = GROUPS[group];
    console.log(`== ${title}`);
    const t0 = performance.now();
    const figures = await run();
    const seconds = (performance.now() - t0) / 1000;
    console.log(figures);
    const stamp = `_${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, \`${command}\`, ${seconds.toFixed(0)} s; ${machine()}_`;
    const text = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : HEADER;
    writeFileSync(RESULTS, replaceSection(text, group, `## ${title}\n\n${stamp}\n\n${figures}`));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
