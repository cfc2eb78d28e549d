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
