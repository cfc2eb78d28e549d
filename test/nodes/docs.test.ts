// What docs/ says of the nodes, beside the nodes' own code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SAMPLE_SIZE } from '../../nodes/DevDataPollTrigger/events';

const DOCS = join(__dirname, '..', '..', 'docs');

test("docs/poll-trigger.md gives a manual run's records as the Poll Trigger shows them: up to SAMPLE_SIZE per event", () => {
  // A version 2 trigger watching several events samples each one (SAMPLE_SIZE records) and shows them as one list,
  // so a manual run shows up to SAMPLE_SIZE records per event, not in all.
  const page = readFileSync(join(DOCS, 'poll-trigger.md'), 'utf8').replace(/\s+/g, ' ');
  expect(page).toContain(
    `**Manual runs** (*Fetch Test Event*, *Execute workflow*) show the latest few records that match the event ` +
      `and its options, up to ${SAMPLE_SIZE} per event, oldest first (with several events, one list in the order ` +
      'the changes happened, each item with its `event`)',
  );
});
