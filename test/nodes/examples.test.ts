// The example workflows, as n8n imports them (`n8n import:workflow` keeps their ids).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const EXAMPLES = join(__dirname, '..', '..', 'examples');

test.each(readdirSync(EXAMPLES).filter((file) => file.endsWith('.json')))(
  '%s has an id n8n keeps static data for (at most 21 characters)',
  (file) => {
    // n8n 2.41 saves a workflow's static data only under an id that fits its column: with a longer one a Poll
    // Trigger forgets its position and a DevData Trigger subscribes anew at every start.
    const { id } = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as { id: string };
    expect(id.length).toBeLessThanOrEqual(21);
  },
);

test.each(readdirSync(EXAMPLES).filter((file) => file.endsWith('.json')))(
  '%s sets no timezone: its schedule runs in the instance’s (or the workflow’s own) as its notes say',
  (file) => {
    const { settings } = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as { settings?: object };
    expect(settings ?? {}).not.toHaveProperty('timezone');
  },
);

test('action-item-sync.json says a scheduled run must read only new tasks: every run creates one action item per input item', () => {
  // Its note suggested a Schedule Trigger in front of "Todoist → Get Many" for a regular sync, which would create
  // every task again at each run.
  const { nodes } = JSON.parse(readFileSync(join(EXAMPLES, 'action-item-sync.json'), 'utf8')) as {
    nodes: Array<{ type: string; parameters: { content?: string } }>;
  };
  const notes = nodes
    .filter((node) => node.type === 'n8n-nodes-base.stickyNote')
    .map((node) => node.parameters.content)
    .join('\n');
  expect(notes).not.toMatch(/For a regular sync, replace it with a \*Schedule Trigger\*\./);
  expect(notes).toMatch(/only the tasks added since the last run/);
  expect(notes).toMatch(/a task read twice becomes two action items/);
});

test('action-item-sync-data-table.json and docs/syncing-action-items.md name the columns it writes with the types n8n lists', () => {
  // n8n's Data Table editor lists a column's type as string, number, boolean or datetime (its API's `date`): a
  // user told "Date" or "Text" finds no such type.
  const { nodes } = JSON.parse(readFileSync(join(EXAMPLES, 'action-item-sync-data-table.json'), 'utf8')) as {
    nodes: Array<{ type: string; parameters: { content?: string; columns?: { value: object } } }>;
  };
  const written = new Set(
    nodes
      .filter((node) => node.type === 'n8n-nodes-base.dataTable' && node.parameters.columns)
      .flatMap((node) => Object.keys(node.parameters.columns!.value)),
  );
  const columns =
    '`description` (string), `completed` (boolean), `due_at` (datetime) and `devdata_id` (string)';
  expect([...columns.matchAll(/`(\w+)`/g)].map(([, name]) => name).sort()).toEqual([...written].sort());
  const notes = nodes
    .filter((node) => node.type === 'n8n-nodes-base.stickyNote')
    .map((node) => node.parameters.content)
    .join('\n');
  const docs = readFileSync(join(EXAMPLES, '..', 'docs', 'syncing-action-items.md'), 'utf8').replace(
    /\s+/g,
    ' ',
  );
  for (const text of [notes, docs]) {
    expect(text).toContain(columns);
    // Every parenthesised type the text gives a column is one of n8n's.
    for (const [, type] of text.matchAll(/`\w+` \((\w+)\)/g))
      expect(['string', 'number', 'boolean', 'datetime']).toContain(type);
  }
});
