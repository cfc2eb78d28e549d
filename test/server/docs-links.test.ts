// Every link in the README, CONTRIBUTING.md, SECURITY.md, the server manual and docs/ leads somewhere: a file of this repository that exists
// (the README names files by their GitHub URL, since npm shows it without the repository beside it; the others
// by relative path), and an #anchor to a heading of the page it names, by GitHub's rules for heading anchors.
// The same for the links to this repository in the examples' sticky notes, the credentials and the nodes' codex
// files, which n8n shows. Links to other sites are not checked. The README's examples table lists every example
// workflow.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const REPO = resolve(__dirname, '../..');
const repository = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'))
  .repository.url.replace(/^git\+/, '')
  .replace(/\.git$/, '') as string;
const rawPrefix = repository.replace('https://github.com/', 'https://raw.githubusercontent.com/') + '/main/';

const pages = [
  'README.md',
  'CONTRIBUTING.md',
  'SECURITY.md',
  'server/README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

/** The page's text outside fenced code blocks (a `#` there is a shell comment, a `[x](y)` is code). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** The anchors GitHub gives a page's headings: text as rendered, lower-cased, punctuation dropped, spaces to -. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*]/g, '')
      .replace(/<[^>]+>/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every link and image target on the page, outside code; a link's text may wrap onto the next line. */
function links(markdown: string): string[] {
  const text = prose(markdown)
    .join('\n')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(([, target]) => target);
}

/** The repository file (and anchor) a link names, or undefined for a link to elsewhere. */
function target(page: string, link: string): { file: string; anchor?: string } | undefined {
  const [path, anchor] = link.split('#') as [string, string | undefined];
  if (path === '') return { file: page, anchor };
  for (const prefix of [`${repository}/blob/main/`, `${repository}/tree/main/`, rawPrefix])
    if (path.startsWith(prefix)) return { file: path.slice(prefix.length), anchor };
  // The repository's own address shows its README.
  if (path === repository) return { file: 'README.md', anchor };
  if (/^[a-z]+:/i.test(path)) return undefined;
  return { file: relative(REPO, join(REPO, dirname(page), path)), anchor };
}

/** The links of `found`, on `page`, that name a repository file that does not exist or a heading it lacks. */
function broken(page: string, found: string[]) {
  return found.flatMap((link) => {
    const named = target(page, link);
    if (!named) return [];
    const path = join(REPO, named.file);
    if (!existsSync(path)) return [{ link, problem: `no file ${named.file}` }];
    if (named.anchor === undefined) return [];
    if (statSync(path).isDirectory() || !path.endsWith('.md'))
      return [{ link, problem: `#${named.anchor} on a file that is not a page` }];
    const anchors = headingAnchors(readFileSync(path, 'utf8'));
    return anchors.has(named.anchor)
      ? []
      : [{ link, problem: `${named.file} has no heading #${named.anchor}` }];
  });
}

describe.each(pages)('%s', (page) => {
  const markdown = readFileSync(join(REPO, page), 'utf8');

  it('has links, each to a file of the repository that exists, and each #anchor to a heading of that page', () => {
    const found = links(markdown);
    expect(found.length).toBeGreaterThan(0);
    expect(broken(page, found)).toEqual([]);
  });
});

// The Docs links n8n shows on each node's and credential's page come from the node's codex file.
const codexFiles = readdirSync(join(REPO, 'nodes'))
  .map((folder) => `nodes/${folder}/${folder}.node.json`)
  .filter((file) => existsSync(join(REPO, file)));

test.each(codexFiles)('%s: every documentation link leads to a page and heading that exist', (file) => {
  const { resources } = JSON.parse(readFileSync(join(REPO, file), 'utf8')) as {
    resources: Record<string, Array<{ url: string }>>;
  };
  const found = Object.values(resources).flatMap((entries) => entries.map((entry) => entry.url));
  expect(found.length).toBeGreaterThan(0);
  expect(broken('README.md', found)).toEqual([]);
});

test('a link whose text wraps onto the next line is found', () => {
  expect(
    links(
      ['See [the server', 'manual](server/README.md#commands) and `[not](a-link)`.', '[one](a.md)'].join(
        '\n',
      ),
    ),
  ).toEqual(['server/README.md#commands', 'a.md']);
});

// Links outside the pages: the examples' sticky notes and the credentials' documentation URLs, which n8n shows.
const sources = [
  ...readdirSync(join(REPO, 'examples'))
    .filter((file) => file.endsWith('.json'))
    .map((file) => `examples/${file}`),
  ...readdirSync(join(REPO, 'credentials'))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `credentials/${file}`),
];

test.each(sources)('%s: every link to this repository leads to a page and heading that exist', (file) => {
  const text = readFileSync(join(REPO, file), 'utf8');
  const found = [...text.matchAll(new RegExp(`${repository}[^\\s"'()\\\\]*`, 'g'))].map(([url]) => url);
  expect(broken('README.md', found)).toEqual([]);
});

test('the anchors are the ones GitHub makes', () => {
  expect([
    ...headingAnchors(
      [
        '# Proactive notifications',
        '## 3. DevData → Proactive Reply → Build',
        '## The guarantee, exactly',
        '```bash',
        '# a comment, not a heading',
        '```',
        '### Change feed (for syncs)',
        '## `npm start` and **more**',
        '## Usage',
        '## Usage',
      ].join('\n'),
    ),
  ]).toEqual([
    'proactive-notifications',
    '3-devdata--proactive-reply--build',
    'the-guarantee-exactly',
    'change-feed-for-syncs',
    'npm-start-and-more',
    'usage',
    'usage-1',
  ]);
});

test("the README's examples table lists every example workflow, each once", () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const section = readme.split(/^### Examples$/m)[1].split(/^#{1,3} /m)[0];
  const listed = [...section.matchAll(/^\| \[([^\]]+)\]\(/gm)].map(([, file]) => file);
  const examples = readdirSync(join(REPO, 'examples')).filter((file) => file.endsWith('.json'));
  expect(listed.sort()).toEqual(examples.sort());
});

test('docs/syncing-action-items.md shows the CREATE TABLE the PostgreSQL sync suite runs', () => {
  const page = readFileSync(join(REPO, 'docs', 'syncing-action-items.md'), 'utf8');
  const sql = /```sql\n([\s\S]*?)```/.exec(page)?.[1];
  expect(sql).toContain('CREATE TABLE devdata_action_items');
  expect(readFileSync(join(REPO, 'test', 'e2e', 'postgres-sync.test.ts'), 'utf8')).toContain(sql);
});
