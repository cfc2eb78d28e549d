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
