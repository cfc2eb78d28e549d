import { createHash } from 'node:crypto';

import type {
  IDataObject,
  INodeExecutionData,
  INodeProperties,
  INodeType,
  INodeTypeDescription,
  IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { listValues, MEMORY_CATEGORY_OPTIONS, withWaitAdvice } from '../shared';

import type { Walk } from './feed';
import {
  ACTION_ITEM_EVENTS,
  changesSince,
  mergeEvents,
  pollBudgetMs,
  sample,
  startState,
  TRIGGER_EVENTS,
  walkActionItems,
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

/** New Memory's option: which categories of memories to report. */
const categoriesOption: INodeProperties = {
  displayName: 'Categories',
  name: 'categories',
  type: 'multiOptions',
  options: MEMORY_CATEGORY_OPTIONS,
  default: [],
  description: 'Only report memories of these categories; all categories when none is chosen',
};

/** Version 1's Options of one event: which of its changes to report. */
function eventOptions(event: TriggerEvent, options: INodeProperties[]): INodeProperties {
  return {
    displayName: 'Options',
    name: 'options',
    type: 'collection',
    placeholder: 'Add Option',
    default: {},
    description: 'Which of the changes to report',
    displayOptions: { show: { '@version': [1], event: [event] } },
    options,
  };
}

const eventChoices = [
  {
    name: 'Deleted Action Item',
    value: 'deletedActionItem',
    description: 'An action item was deleted; the output is its deletion record: which action item, and when',
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
    description: 'A conversation was created (a live transcript once its session is finished)',
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
];

/** Version 2's Trigger On: the changes the trigger watches. */
const eventsParameter: INodeProperties = {
  displayName: 'Trigger On',
  name: 'events',
  type: 'multiOptions',
  noDataExpression: true,
  required: true,
  default: ['newActionItem'],
  options: eventChoices,
  description:
    'The changes that start the workflow. Each item says which one it is in its <code>event</code> field (e.g. newActionItem), so a Switch node can route them.',
  displayOptions: { show: { '@version': [2] } },
};

/** Version 2's Options: one collection for every event chosen, each option shown for the events it applies to. */
const eventsOptions: INodeProperties = {
  displayName: 'Options',
  name: 'options',
  type: 'collection',
  placeholder: 'Add Option',
  default: {},
  description: 'Which of the changes to report',
  displayOptions: {
    show: {
      '@version': [2],
      events: ['newActionItem', 'updatedActionItem', 'newConversation', 'newMemory'],
    },
  },
  options: [
    {
      ...categoriesOption,
      description: 'New Memory: only report memories of these categories; all categories when none is chosen',
      displayOptions: { show: { '/events': ['newMemory'] } },
    },
    {
      displayName: 'Include Discarded',
      name: 'includeDiscarded',
      type: 'boolean',
      default: false,
      description:
        'Whether New Conversation also reports conversations that are discarded when the trigger sees them',
      displayOptions: { show: { '/events': ['newConversation'] } },
    },
    {
      displayName: 'Include Transcript',
      name: 'includeTranscript',
      type: 'boolean',
      default: false,
      description:
        'Whether New Conversation includes the transcript segments (transcript_segments) in each conversation',
      displayOptions: { show: { '/events': ['newConversation'] } },
    },
    {
      displayName: 'Only Completed',
      name: 'onlyCompleted',
      type: 'boolean',
      default: false,
      description:
        'Whether to only report completed action items: New Action Item those already completed, Updated Action Item those completed since the last poll',
      displayOptions: { show: { '/events': ['newActionItem', 'updatedActionItem'] } },
    },
    {
      ...onlyWithDueDate,
      displayOptions: { show: { '/events': ['newActionItem', 'updatedActionItem'] } },
    },
  ],
};

const properties: INodeProperties[] = [
  {
    displayName:
      'When the workflow is first activated, the trigger starts from now: it reports only changes made after that, each once, in the order they happened (activated again, it reads on from where it stopped). A manual run (Fetch Test Event) shows the latest few matching records and moves nothing.',
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
    options: eventChoices,
    description: 'The change that starts the workflow',
    displayOptions: { show: { '@version': [1] } },
  },
  eventsParameter,
  eventsOptions,
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
  eventOptions('newMemory', [categoriesOption]),
];

/**
 * The polls running in this process, by workflow and node, with their start time. n8n can start a poll while the
 * previous one of the same node still runs (a long backlog, a slow server); both would read from the same stored
 * position and report the same changes. The later one returns null instead and leaves the work to the running
 * one. A poll running for longer than POLL_LOCK_MS no longer holds the node (it is taken to have hung).
 */
const runningPolls = new Map<string, { since: number }>();
const POLL_LOCK_MS = 15 * 60 * 1000;

/**
 * Which server the stored positions belong to: a SHA-256 of the credential's Base URL, without surrounding spaces
 * or trailing slashes. Another server's records are not changes since this position, so a Base URL switched to
 * another server starts from now, as a change of Trigger On does. The key is left out on purpose: a new key of the
 * same user (key rotation) must read on from the position and lose no change.
 */
async function serverFingerprint(this: IPollFunctions): Promise<string> {
  const { baseUrl } = await this.getCredentials('devDataApi');
  return createHash('sha256')
    .update(
      String(baseUrl ?? '')
        .trim()
        .replace(/\/+$/, ''),
    )
    .digest('hex');
}

/**
 * Whether the stored state was read from this server. State stored without a server fingerprint was, by a version
 * that kept none.
 */
const sameServer = (staticData: IDataObject, fingerprint: string) =>
  staticData.server === undefined || staticData.server === fingerprint;

/**
 * The stored state when it belongs to `event` and the server; undefined before the first activation or after a
 * change of event or server.
 */
function storedState(
  staticData: IDataObject,
  event: TriggerEvent,
  fingerprint: string,
): TriggerState | undefined {
  if (staticData.event !== event || staticData.position === undefined) return undefined;
  if (!sameServer(staticData, fingerprint)) return undefined;
  return {
    event,
    position: staticData.position as TriggerState['position'],
    goalValues: staticData.goalValues as TriggerState['goalValues'],
    heldConversations: staticData.heldConversations as TriggerState['heldConversations'],
  };
}

/**
 * Replaces the stored state in one step, after the whole poll succeeded. Unchanged state is left alone, so n8n
 * has nothing to save after a poll that found nothing.
 */
function storeState(staticData: IDataObject, state: TriggerState, fingerprint: string): void {
  const next: IDataObject = {
    event: state.event,
    position: state.position,
    ...(state.goalValues ? { goalValues: state.goalValues } : {}),
    ...(state.heldConversations ? { heldConversations: state.heldConversations } : {}),
    server: fingerprint,
  };
  replaceStaticData(staticData, next);
}

/** Replaces the node's static data with `next`, in one step, only when it differs. */
function replaceStaticData(staticData: IDataObject, next: IDataObject): void {
  if (JSON.stringify(staticData) === JSON.stringify(next)) return;
  for (const key of Object.keys(staticData)) delete staticData[key];
  Object.assign(staticData, next);
}

/**
 * Version 2's stored states, by event (a watched event without one starts from now); none when they were read
 * from another server.
 */
function storedStates(
  staticData: IDataObject,
  fingerprint: string,
): Partial<Record<TriggerEvent, TriggerState>> {
  if (!sameServer(staticData, fingerprint)) return {};
  const states = (staticData.states ?? {}) as Partial<Record<TriggerEvent, Omit<TriggerState, 'event'>>>;
  return Object.fromEntries(
    Object.entries(states).map(([event, state]) => [event, { ...state, event }]),
  ) as Partial<Record<TriggerEvent, TriggerState>>;
}

/** Version 2: replaces the stored states with those of the events watched now, in one step, only when changed. */
function storeStates(staticData: IDataObject, states: TriggerState[], fingerprint: string): void {
  const next: IDataObject = {
    states: Object.fromEntries(
      states.map(({ event, position, goalValues, heldConversations }) => [
        event,
        {
          position,
          ...(goalValues ? { goalValues } : {}),
          ...(heldConversations ? { heldConversations } : {}),
        },
      ]),
    ),
    server: fingerprint,
  };
  replaceStaticData(staticData, next);
}

/** The events a version 2 node watches, each once, in TRIGGER_EVENTS order. */
function watchedEvents(this: IPollFunctions): TriggerEvent[] {
  const chosen = listValues(this.getNode(), this.getNodeParameter('events', []), eventsParameter.displayName);
  const events = TRIGGER_EVENTS.filter((event) => chosen.includes(event));
  if (!events.length) {
    throw new NodeOperationError(
      this.getNode(),
      `Choose at least one event in ${eventsParameter.displayName}`,
      {
        description: 'The trigger has nothing to watch: pick the changes that should start the workflow.',
      },
    );
  }
  return events;
}

/**
 * One poll of a version 2 node: every watched event's changes since its stored position, as one list in change
 * order, each item tagged with its event. An event watched for the first time starts from now. The states of
 * all events are stored together, only when every event's walk succeeded.
 */
async function pollEvents(
  this: IPollFunctions,
  events: TriggerEvent[],
  options: TriggerOptions,
): Promise<IDataObject[]> {
  const staticData = this.getWorkflowStaticData('node');
  const fingerprint = await serverFingerprint.call(this);
  const stored = storedStates(staticData, fingerprint);
  const budgetMs = pollBudgetMs.call(this);
  const started = Date.now();
  const states: TriggerState[] = [];
  const found: Array<{ event: TriggerEvent; records: IDataObject[] }> = [];
  const actionItemStates = ACTION_ITEM_EVENTS.flatMap((event) =>
    events.includes(event) && stored[event] ? [stored[event]] : [],
  );
  let actionItems: Walk | undefined;
  for (const event of events) {
    const state = stored[event];
    if (!state) {
      states.push(await startState.call(this, event));
      continue;
    }
    // The events share the poll's budget; each still reads at least one page.
    const left = budgetMs === undefined ? undefined : Math.max(0, budgetMs - (Date.now() - started));
    if (actionItemStates.length > 1 && ACTION_ITEM_EVENTS.includes(event)) {
      actionItems ??= await walkActionItems.call(this, actionItemStates, left);
    }
    const shared = ACTION_ITEM_EVENTS.includes(event) ? actionItems : undefined;
    const changes = await changesSince.call(this, state, options, left, shared);
    states.push(changes.state);
    found.push({ event, records: changes.records });
  }
  storeStates(staticData, states, fingerprint);
  return mergeEvents(found);
}

/**
 * The Options the node was given, Categories read as listValues reads a list (an expression may give text). A
 * category the server does not have fails the poll: no memory would ever match it, and New Memory would stay
 * silent instead of saying why (the DevData node's server answers 422 for it).
 */
function triggerOptions(this: IPollFunctions): TriggerOptions {
  const options = this.getNodeParameter('options', {}) as TriggerOptions;
  if (options.categories === undefined) return options;
  const categories = listValues(this.getNode(), options.categories, categoriesOption.displayName);
  const known = MEMORY_CATEGORY_OPTIONS.map((option) => String(option.value));
  const unknown = categories.filter((category) => !known.includes(category));
  if (unknown.length) {
    throw new NodeOperationError(
      this.getNode(),
      `Unknown category "${unknown.join('", "')}" in ${categoriesOption.displayName}`,
      { description: `${categoriesOption.displayName} takes ${known.join(', ')} (lowercase).` },
    );
  }
  return { ...options, categories };
}

/**
 * A poll that failed on something a wait ends stored nothing, and the next poll reads the same changes: its error
 * says so instead of the DevData node's advice for an execution ("Run the workflow again …, or turn on Retry On
 * Fail"), which does nothing for an active trigger: a manual run reads no position, and n8n retries no poll.
 */
const POLL_WAIT_ADVICE =
  'Nothing is lost: the poll stored nothing, and the next one (at the next Poll Time, or when the workflow is activated again) reads these changes, each once.';

export class DevDataPollTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'DevData Poll Trigger',
    name: 'devDataPollTrigger',
    icon: { light: 'file:devDataPollTrigger.svg', dark: 'file:devDataPollTrigger.dark.svg' },
    group: ['trigger'],
    version: [1, 2],
    defaultVersion: 2,
    subtitle:
      '={{ ($parameter["events"] || [$parameter["event"]]).map((event) => ({ newActionItem: "New Action Item", updatedActionItem: "Updated Action Item", deletedActionItem: "Deleted Action Item", newConversation: "New Conversation", newMemory: "New Memory", goalProgressChanged: "Goal Progress Changed" })[event]).join(", ") }}',
    description:
      'Starts the workflow on new, changed or deleted DevData action items, new conversations or memories, or goal progress, by polling the change feed',
    defaults: { name: 'DevData Poll Trigger' },
    polling: true,
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'devDataApi', required: true }],
    properties,
  };

  async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
    // Version 1 watches one event and emits the records as they are; version 2 watches several and tags each.
    const tagged = this.getNode().typeVersion >= 2;
    const events = tagged ? watchedEvents.call(this) : [this.getNodeParameter('event') as TriggerEvent];
    const event = events[0];
    const options = triggerOptions.call(this);

    if (this.getMode() === 'manual') {
      const records = tagged
        ? mergeEvents(
            await Promise.all(
              events.map(async (each) => ({ event: each, records: await sample.call(this, each, options) })),
            ),
          )
        : await sample.call(this, event, options);
      return records.length ? [this.helpers.returnJsonArray(records)] : null;
    }

    const pollKey = `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
    const running = runningPolls.get(pollKey);
    if (running && Date.now() - running.since < POLL_LOCK_MS) return null;
    const lock = { since: Date.now() };
    runningPolls.set(pollKey, lock);
    try {
      if (tagged) {
        const records = await pollEvents.call(this, events, options);
        return records.length ? [this.helpers.returnJsonArray(records)] : null;
      }
      const staticData = this.getWorkflowStaticData('node');
      const fingerprint = await serverFingerprint.call(this);
      const state = storedState(staticData, event, fingerprint);
      if (!state) {
        storeState(staticData, await startState.call(this, event), fingerprint);
        return null;
      }
      const changes = await changesSince.call(this, state, options);
      storeState(staticData, changes.state, fingerprint);
      return changes.records.length ? [this.helpers.returnJsonArray(changes.records)] : null;
    } catch (error) {
      throw withWaitAdvice(error, POLL_WAIT_ADVICE);
    } finally {
      if (runningPolls.get(pollKey) === lock) runningPolls.delete(pollKey);
    }
  }
}
