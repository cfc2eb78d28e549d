import type {
  IDataObject,
  INodeExecutionData,
  INodeProperties,
  INodeType,
  INodeTypeDescription,
  IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import {
  changesSince,
  sample,
  startState,
  type TriggerEvent,
  type TriggerOptions,
  type TriggerState,
} from './events';

const onlyWithDueDate: INodeProperties = {
  displayName: 'Only With a Due Date',
  name: 'onlyWithDueDate',
  type: 'boolean',
  default: false,
  description: 'Whether to only report action items that have a due date',
};

/** The Options of one event: which of its changes to report. */
function eventOptions(event: TriggerEvent, options: INodeProperties[]): INodeProperties {
  return {
    displayName: 'Options',
    name: 'options',
    type: 'collection',
    placeholder: 'Add Option',
    default: {},
    description: 'Which of the changes to report',
    displayOptions: { show: { event: [event] } },
    options,
  };
}

const properties: INodeProperties[] = [
  {
    displayName:
      'When the workflow is activated, the trigger starts from now: it reports only changes made after that, each once, in the order they happened. A test run shows the latest few matching records and moves nothing.',
    name: 'pollNotice',
    type: 'notice',
    default: '',
  },
  {
    displayName: 'Trigger On',
    name: 'event',
    type: 'options',
    noDataExpression: true,
    required: true,
    default: 'newActionItem',
    options: [
      {
        name: 'Deleted Action Item',
        value: 'deletedActionItem',
        description:
          'An action item was deleted; the output is its deletion record: which action item, and when',
      },
      {
        name: 'Goal Progress Changed',
        value: 'goalProgressChanged',
        description: 'The current value of a goal changed since the last poll',
      },
      {
        name: 'New Action Item',
        value: 'newActionItem',
        description: 'An action item was created (in the state it has when the trigger sees it)',
      },
      {
        name: 'New Conversation',
        value: 'newConversation',
        description: 'A conversation was created',
      },
      {
        name: 'New Memory',
        value: 'newMemory',
        description: 'A memory was created',
      },
      {
        name: 'Updated Action Item',
        value: 'updatedActionItem',
        description:
          'An action item changed after it was created: completed, reopened, edited, given or cleared a due date',
      },
    ],
    description: 'The change that starts the workflow',
  },
  eventOptions('newActionItem', [
    {
      displayName: 'Only Completed',
      name: 'onlyCompleted',
      type: 'boolean',
      default: false,
      description: 'Whether to only report new action items that are already completed',
    },
    onlyWithDueDate,
  ]),
  eventOptions('updatedActionItem', [
    {
      displayName: 'Only Completed',
      name: 'onlyCompleted',
      type: 'boolean',
      default: false,
      description: 'Whether to only report action items that were completed since the last poll',
    },
    onlyWithDueDate,
  ]),
  eventOptions('newConversation', [
    {
      displayName: 'Include Discarded',
      name: 'includeDiscarded',
      type: 'boolean',
      default: false,
      description: 'Whether to also report conversations that are discarded when the trigger sees them',
    },
    {
      displayName: 'Include Transcript',
      name: 'includeTranscript',
      type: 'boolean',
      default: false,
      description: 'Whether to include the transcript segments (transcript_segments) in each conversation',
    },
  ]),
  eventOptions('newMemory', [
    {
      displayName: 'Categories',
      name: 'categories',
      type: 'multiOptions',
      options: [
        { name: 'Interesting', value: 'interesting' },
        { name: 'Manual', value: 'manual' },
        { name: 'System', value: 'system' },
      ],
      default: [],
      description: 'Only report memories of these categories; all categories when none is chosen',
    },
  ]),
];

/**
 * The polls running in this process, by workflow and node, with their start time. n8n can start a poll while the
 * previous one of the same node still runs (a long backlog, a slow server); both would read from the same stored
 * position and report the same changes. The later one returns null instead and leaves the work to the running
 * one. A poll running for longer than POLL_LOCK_MS no longer holds the node (it is taken to have hung).
 */
const runningPolls = new Map<string, { since: number }>();
const POLL_LOCK_MS = 15 * 60 * 1000;

/** The stored state when it belongs to `event`; undefined before the first activation or after a change of event. */
function storedState(staticData: IDataObject, event: TriggerEvent): TriggerState | undefined {
  if (staticData.event !== event || staticData.position === undefined) return undefined;
  return {
    event,
    position: staticData.position as TriggerState['position'],
    goalValues: staticData.goalValues as TriggerState['goalValues'],
  };
}

/**
 * Replaces the stored state in one step, after the whole poll succeeded. Unchanged state is left alone, so n8n
 * has nothing to save after a poll that found nothing.
 */
function storeState(staticData: IDataObject, state: TriggerState): void {
  const next: IDataObject = {
    event: state.event,
    position: state.position,
    ...(state.goalValues ? { goalValues: state.goalValues } : {}),
  };
  if (JSON.stringify(staticData) === JSON.stringify(next)) return;
  for (const key of Object.keys(staticData)) delete staticData[key];
  Object.assign(staticData, next);
}

export class DevDataPollTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'DevData Poll Trigger',
    name: 'devDataPollTrigger',
    icon: { light: 'file:devDataPollTrigger.svg', dark: 'file:devDataPollTrigger.dark.svg' },
    group: ['trigger'],
    version: 1,
    subtitle:
      '={{ ({ newActionItem: "New Action Item", updatedActionItem: "Updated Action Item", deletedActionItem: "Deleted Action Item", newConversation: "New Conversation", newMemory: "New Memory", goalProgressChanged: "Goal Progress Changed" })[$parameter["event"]] }}',
    description:
      'Starts the workflow when DevData action items, conversations, memories or goals change, by polling the change feed',
    defaults: { name: 'DevData Poll Trigger' },
    polling: true,
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'devDataApi', required: true }],
    properties,
  };

  async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
    const event = this.getNodeParameter('event') as TriggerEvent;
    const options = this.getNodeParameter('options', {}) as TriggerOptions;

    if (this.getMode() === 'manual') {
      const records = await sample.call(this, event, options);
      return records.length ? [this.helpers.returnJsonArray(records)] : null;
    }

    const pollKey = `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
    const running = runningPolls.get(pollKey);
    if (running && Date.now() - running.since < POLL_LOCK_MS) return null;
    const lock = { since: Date.now() };
    runningPolls.set(pollKey, lock);
    try {
      const staticData = this.getWorkflowStaticData('node');
      const state = storedState(staticData, event);
      if (!state) {
        storeState(staticData, await startState.call(this, event));
        return null;
      }
      const changes = await changesSince.call(this, state, options);
      storeState(staticData, changes.state);
      return changes.records.length ? [this.helpers.returnJsonArray(changes.records)] : null;
    } finally {
      if (runningPolls.get(pollKey) === lock) runningPolls.delete(pollKey);
    }
  }
}
