import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { devDataRequest } from '../shared';
import { isAfter, latestStates, walk, type Feed, type Position, type Walk } from './feed';

/** Every event, in the order a poll that watches several reports changes stamped in the same millisecond. */
export const TRIGGER_EVENTS = [
  'newActionItem',
  'updatedActionItem',
  'deletedActionItem',
  'newConversation',
  'newMemory',
  'goalProgressChanged',
] as const;

export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

export interface TriggerOptions {
  onlyCompleted?: boolean;
  onlyWithDueDate?: boolean;
  includeTranscript?: boolean;
  includeDiscarded?: boolean;
  categories?: string[];
}

/** What the trigger keeps in the node's static data between polls. */
export interface TriggerState {
  /** The event the position belongs to: choosing another event starts from now again. */
  event: TriggerEvent;
  /** The last change read (null: the start of the feed, for goals when there were none). */
  position: Position | null;
  /** Goal Progress Changed: the last current_value seen per goal id, least recently changed first. */
  goalValues?: Array<[string, number]>;
  /**
   * New Conversation: the ids of conversations read still in progress (a live transcript), created after a
   * position or already in progress when the event started, held back until they are read completed; the one
   * read in progress longest ago first.
   */
  heldConversations?: string[];
}

/** How many records a manual run shows. */
export const SAMPLE_SIZE = 5;
/**
 * The first activation reads the changes of the last hour to find where the feed ends and starts after them,
 * so a clock difference between n8n and the server of up to an hour loses nothing and repeats nothing.
 */
export const START_LOOKBACK_MS = 60 * 60 * 1000;
/** Goal Progress Changed remembers the value of at most this many goals (the most recently changed ones). */
export const MAX_TRACKED_GOALS = 1000;
/** New Conversation holds back at most this many conversations in progress (the most recently read in progress). */
export const MAX_HELD_CONVERSATIONS = 1000;

/** A manual run of a "New …" event reads the newest records this many at a time, */
const SAMPLE_PAGE_SIZE = 100;
/** and at most this many, for the options' matches among them. */
const SAMPLE_READ_LIMIT = 1000;

const DAY_MS = 86_400_000;
/** A manual run looks this far back for changes and deletions, widening until it has SAMPLE_SIZE of them. */
const SAMPLE_WINDOWS_MS = [DAY_MS, 7 * DAY_MS, 30 * DAY_MS];
const DEV = '/v1/dev/user';

/**
 * The conversations in progress (live transcript sessions not finished), discarded ones too, as a change feed:
 * keyset pages by (updated_at, id), so a conversation in progress throughout the read is read, even when it
 * changes meanwhile (it comes again later), and one finished meanwhile shifts no other out of a page.
 */
const IN_PROGRESS_FEED: Feed = {
  path: `${DEV}/conversations`,
  kind: 'changes',
  pageSize: 1000,
  qs: { statuses: 'in_progress', include_discarded: true },
};

/** The conversations deleted after a position (their tombstones), oldest deletion first. */
const DELETED_CONVERSATIONS_FEED: Feed = {
  path: `${DEV}/deleted`,
  kind: 'tombstones',
  pageSize: 1000,
  qs: { type: 'conversation' },
};

function feedOf(event: TriggerEvent, options: TriggerOptions): Feed {
  switch (event) {
    case 'newActionItem':
    case 'updatedActionItem':
      return { path: `${DEV}/action-items`, kind: 'changes', pageSize: 1000 };
    case 'deletedActionItem':
      return { path: `${DEV}/deleted`, kind: 'tombstones', pageSize: 1000, qs: { type: 'action_item' } };
    case 'newConversation':
      // The feed includes discarded conversations; the Include Discarded option filters them here.
      return {
        path: `${DEV}/conversations`,
        kind: 'changes',
        pageSize: 100,
        qs: options.includeTranscript ? { include_transcript: true } : undefined,
      };
    case 'newMemory':
      return { path: `${DEV}/memories`, kind: 'changes', pageSize: 1000 };
    case 'goalProgressChanged':
      return { path: `${DEV}/goals`, kind: 'changes', pageSize: 1000 };
  }
}

/** The options that look at a record's current state. */
function passesFilters(event: TriggerEvent, record: IDataObject, options: TriggerOptions): boolean {
  switch (event) {
    case 'newActionItem':
    case 'updatedActionItem':
      if (options.onlyWithDueDate && !record.due_at) return false;
      if (options.onlyCompleted && record.completed !== true) return false;
      return true;
    case 'newConversation':
      return options.includeDiscarded === true || record.discarded !== true;
    case 'newMemory':
      return !options.categories?.length || options.categories.includes(String(record.category));
    default:
      return true;
  }
}

/** Whether a record was created after `position`: its creation is the change (created_at, id). */
const createdAfter = (record: IDataObject, position: Position | null) =>
  isAfter(record.created_at, record.id, position);

/** Whether a record has been changed since it was created. */
const edited = (record: IDataObject) =>
  Date.parse(String(record.updated_at)) > Date.parse(String(record.created_at));

/** The later of two positions (null: the start of the feed). */
const laterOf = (a: Position | null, b: Position | null) => (a && isAfter(a.at, a.id, b) ? a : b);

/**
 * Which of the changes read after `from` the event reports. `records` hold each record once, in its latest
 * state, in change order.
 */
function selectChanges(
  event: TriggerEvent,
  records: IDataObject[],
  from: Position | null,
  options: TriggerOptions,
): IDataObject[] {
  return records.filter((record) => {
    if (!passesFilters(event, record, options)) return false;
    switch (event) {
      case 'newActionItem':
      case 'newMemory':
        return createdAfter(record, from);
      case 'updatedActionItem':
        // A record whose latest change is its creation is new, not updated. Whether it was edited is read from
        // the record itself, never from this trigger's position: that position is not the New Action Item
        // trigger's, and after a poll that emitted nothing n8n keeps it only in memory, so a restart moves it
        // back. Judging "created since my last poll" by it lost edits made after the other trigger, or the
        // forgotten poll, had seen the record new.
        if (!edited(record)) return false;
        // Read by this event before: a walk shared with New Action Item starts at the earlier of their positions.
        if (!isAfter(record.updated_at, record.id, from)) return false;
        // Only Completed: completed since the last poll (completed_at is the stamp of the completing write).
        return !options.onlyCompleted || isAfter(record.completed_at, record.id, from);
      default:
        return true;
    }
  });
}

/**
 * Goal Progress Changed: the goals whose current_value differs from the value remembered for them, updating
 * `values` (least recently changed first, at most MAX_TRACKED_GOALS). A goal without a remembered value (created
 * since the last poll, or forgotten because more goals changed since) counts as changed when it was edited after
 * it was created: its earlier value is unknown, and a progress change must not be missed.
 */
function goalProgressChanges(records: IDataObject[], values: Map<string, number>): IDataObject[] {
  const changed: IDataObject[] = [];
  for (const goal of records) {
    const id = String(goal.id);
    const value = Number(goal.current_value);
    const previous = values.get(id);
    if (previous === undefined ? edited(goal) : previous !== value) changed.push(goal);
    values.delete(id);
    values.set(id, value);
  }
  forgetOldest(values);
  return changed;
}

function forgetOldest(values: Map<string, number>): void {
  for (const id of values.keys()) {
    if (values.size <= MAX_TRACKED_GOALS) break;
    values.delete(id);
  }
}

/**
 * New Conversation: the conversations created after `from`, each once it is completed. One read still in progress
 * (a live transcript session going on; a server without `status` has none) is added to `held` instead, or moved to
 * its end when held already, whenever it was created: the start held every session open then, so one not held
 * was opened since and either went unread by a poll the budget cut short (its latest change lay past where that
 * poll stopped, its creation before) or was forgotten as the oldest of too many. A held one read completed is
 * reported then, though created before `from`, and no longer held. Its session's end is a change of it, so the
 * feed brings it back. A held id leaves `held` otherwise only when its conversation was deleted (forgetDeleted),
 * or as the one read in progress longest ago when more than MAX_HELD_CONVERSATIONS are held (forgetOldestHeld).
 */
function newConversations(
  records: IDataObject[],
  from: Position | null,
  options: TriggerOptions,
  held: Set<string>,
): IDataObject[] {
  return records.filter((record) => {
    const id = String(record.id);
    if (record.status === 'in_progress') {
      held.delete(id);
      held.add(id);
      return false;
    }
    const wasHeld = held.delete(id);
    return (wasHeld || createdAfter(record, from)) && passesFilters('newConversation', record, options);
  });
}

/**
 * Forgets the held conversations deleted after `from`, read from the deletions feed within `budgetMs`, only when
 * that read was complete (cut short, it keeps them all). A held id was read in progress at or before the end of
 * this poll's walk, which started at `from`, and was deleted after that read, so a deletion before `from` was
 * read by an earlier poll or by the start (unless that read was cut short: then the id stays held until it is the
 * oldest of too many).
 */
async function forgetDeleted(
  this: IPollFunctions,
  held: Set<string>,
  from: Position | null,
  budgetMs: number | undefined,
): Promise<void> {
  const { records, complete } = await walk.call(this, DELETED_CONVERSATIONS_FEED, from, budgetMs);
  if (!complete) return;
  for (const tombstone of records) held.delete(String(tombstone.id));
}

function forgetOldestHeld(held: Set<string>): void {
  for (const id of held) {
    if (held.size <= MAX_HELD_CONVERSATIONS) break;
    held.delete(id);
  }
}

/**
 * The ids of the conversations in progress, the one changed longest ago first, all of them (the start keeps the
 * newest MAX_HELD_CONVERSATIONS). A server without conversation `status` ignores `statuses` and lists every
 * conversation: the first one not in progress ends the read, and that server has none in progress.
 */
async function inProgressConversations(this: IPollFunctions): Promise<string[]> {
  const notInProgress = (record: IDataObject) => record.status !== 'in_progress';
  const { records } = await walk.call(this, IN_PROGRESS_FEED, null, undefined, notInProgress);
  if (records.some(notInProgress)) return [];
  return latestStates(records).map((record) => String(record.id));
}

export function pollBudgetMs(this: IPollFunctions): number | undefined {
  // getPollBudgetMs came with n8n 2.x's durable poll cursors; older n8n versions run without a budget.
  return typeof this.getPollBudgetMs === 'function' ? this.getPollBudgetMs() : undefined;
}

/**
 * The state of a first activation: the position at the end of the feed as it is now, so only later changes
 * are reported. For goals, also the current value of every goal (the baseline progress is compared with). For
 * conversations, also the ones in progress then, held back to be reported once finished.
 */
export async function startState(this: IPollFunctions, event: TriggerEvent): Promise<TriggerState> {
  const feed = feedOf(event, {});
  if (event === 'goalProgressChanged') {
    const { records, position } = await walk.call(this, feed, null);
    const values = new Map<string, number>();
    goalProgressChanges(latestStates(records), values);
    return { event, position, goalValues: [...values] };
  }
  // Read before the position is found: a session finished in between is read completed by the walk below, at or
  // before the position, and not held; one started in between is read there in progress and held.
  const held = event === 'newConversation' ? new Set(await inProgressConversations.call(this)) : undefined;
  const lookback = { at: new Date(Date.now() - START_LOOKBACK_MS).toISOString(), id: '' };
  const { records, position } = await walk.call(this, feed, lookback);
  if (!held) return { event, position };
  for (const record of latestStates(records)) {
    const id = String(record.id);
    held.delete(id);
    if (record.status === 'in_progress') held.add(id);
  }
  // One deleted between the two reads may be stamped before the position, where no poll reads deletions.
  if (held.size) await forgetDeleted.call(this, held, lookback, undefined);
  forgetOldestHeld(held);
  return { event, position, ...(held.size ? { heldConversations: [...held] } : {}) };
}

/**
 * Reads every change after the stored position and returns the records the event reports, in change order,
 * with the state to store once they are handed over. Throws (storing nothing) when any page fails. `budgetMs`:
 * the time this walk may take (n8n's poll budget unless said otherwise).
 */
export async function changesSince(
  this: IPollFunctions,
  state: TriggerState,
  options: TriggerOptions,
  budgetMs = pollBudgetMs.call(this),
  shared?: Walk,
): Promise<{ records: IDataObject[]; state: TriggerState }> {
  const { event } = state;
  const started = Date.now();
  const read = shared ?? (await walk.call(this, feedOf(event, options), state.position, budgetMs));
  const { records } = read;
  // A shared walk may have started before this event's position and, cut short by the budget, ended before it too.
  const position = laterOf(read.position, state.position);
  const latest = latestStates(records);
  if (event === 'goalProgressChanged') {
    const values = new Map(state.goalValues ?? []);
    const changed = goalProgressChanges(latest, values);
    return { records: changed, state: { event, position, goalValues: [...values] } };
  }
  if (event === 'newConversation') {
    const held = new Set(state.heldConversations ?? []);
    const reported = newConversations(latest, state.position, options, held);
    if (held.size) {
      const left = budgetMs === undefined ? undefined : Math.max(0, budgetMs - (Date.now() - started));
      await forgetDeleted.call(this, held, state.position, left);
    }
    // After the deleted ones are gone, so a deletion frees a place rather than one still open losing it.
    forgetOldestHeld(held);
    return {
      records: reported,
      state: { event, position, ...(held.size ? { heldConversations: [...held] } : {}) },
    };
  }
  return { records: selectChanges(event, latest, state.position, options), state: { event, position } };
}

/** The events that read the same feed: the action items' changes. */
export const ACTION_ITEM_EVENTS: readonly TriggerEvent[] = ['newActionItem', 'updatedActionItem'];

/**
 * New and Updated Action Item watched together read their feed once, from the earlier of their positions, and
 * each reports from that one read. Two reads, one after the other, end at different changes: a record created and
 * edited between them came as updated in this poll, and as new only in the next.
 */
export async function walkActionItems(
  this: IPollFunctions,
  states: TriggerState[],
  budgetMs: number | undefined,
): Promise<Walk> {
  const from = states.map((state) => state.position).reduce((a, b) => (laterOf(a, b) === a ? b : a));
  return await walk.call(this, feedOf('newActionItem', {}), from, budgetMs);
}

/**
 * The newest SAMPLE_SIZE records of a list in its default order (newest created first) that pass the options,
 * oldest of them first. The options filter here, so it reads on page by page while too few match, up to
 * SAMPLE_READ_LIMIT records.
 */
async function newestCreated(
  this: IPollFunctions,
  event: TriggerEvent,
  options: TriggerOptions,
): Promise<IDataObject[]> {
  const feed = feedOf(event, options);
  const qs: IDataObject = { ...feed.qs, limit: SAMPLE_PAGE_SIZE };
  if (event === 'newConversation' && options.includeDiscarded) qs.include_discarded = true;
  const found = new Map<string, IDataObject>();
  for (let offset = 0; offset < SAMPLE_READ_LIMIT && found.size < SAMPLE_SIZE; offset += SAMPLE_PAGE_SIZE) {
    const page = (await devDataRequest.call(this, {
      method: 'GET',
      path: feed.path,
      qs: { ...qs, offset },
    })) as IDataObject[];
    // A record written meanwhile shifts the pages by one: one already seen may come again.
    for (const record of page) {
      if (found.size < SAMPLE_SIZE && passesFilters(event, record, options))
        found.set(String(record.id), record);
    }
    if (page.length < SAMPLE_PAGE_SIZE) break;
  }
  return [...found.values()].reverse();
}

/**
 * The last SAMPLE_SIZE records that `pick` picks, in its order, among the latest states of those changed since a
 * day ago (given in feed order), looking back a week, then 30 days while fewer were picked.
 */
async function latestChanges(
  this: IPollFunctions,
  feed: Feed,
  pick: (records: IDataObject[], from: Position) => IDataObject[],
): Promise<IDataObject[]> {
  let found: IDataObject[] = [];
  for (const windowMs of SAMPLE_WINDOWS_MS) {
    const from = { at: new Date(Date.now() - windowMs).toISOString(), id: '' };
    const { records } = await walk.call(this, feed, from, pollBudgetMs.call(this));
    found = pick(latestStates(records), from).slice(-SAMPLE_SIZE);
    if (found.length >= SAMPLE_SIZE) break;
  }
  return found;
}

/** Records in the order they were created (created_at, then id), as the feed orders their creations. */
const byCreation = (a: IDataObject, b: IDataObject) =>
  Date.parse(String(a.created_at)) - Date.parse(String(b.created_at)) ||
  (String(a.id) < String(b.id) ? -1 : 1);

/**
 * New Conversation's sample: the newest created conversations that the event would report (completed, passing
 * the options). The list orders conversations by when they started, so one created today that started long ago
 * (imported) would be left out there: the change feed finds the ones created lately, and the list adds older
 * ones when fewer than SAMPLE_SIZE were created in 30 days.
 */
async function newestCreatedConversations(
  this: IPollFunctions,
  options: TriggerOptions,
): Promise<IDataObject[]> {
  const reported = (record: IDataObject) =>
    record.status !== 'in_progress' && passesFilters('newConversation', record, options);
  const recent = await latestChanges.call(this, feedOf('newConversation', options), (records, from) =>
    records.filter((record) => createdAfter(record, from) && reported(record)).sort(byCreation),
  );
  if (recent.length >= SAMPLE_SIZE) return recent;
  const older = await newestCreated.call(this, 'newConversation', options);
  const byId = new Map([...older, ...recent].map((record) => [String(record.id), record]));
  return [...byId.values()].sort(byCreation).slice(-SAMPLE_SIZE);
}

/**
 * What a manual run shows so fields can be mapped: the latest few records that match the event and its
 * options, oldest first, without reading or moving the stored position.
 */
export async function sample(
  this: IPollFunctions,
  event: TriggerEvent,
  options: TriggerOptions,
): Promise<IDataObject[]> {
  const feed = feedOf(event, options);
  switch (event) {
    case 'newActionItem':
    case 'newMemory':
      return await newestCreated.call(this, event, options);
    case 'newConversation':
      return await newestCreatedConversations.call(this, options);
    case 'updatedActionItem':
      return await latestChanges.call(this, feed, (records) =>
        records.filter((record) => edited(record) && passesFilters(event, record, options)),
      );
    case 'deletedActionItem':
      return await latestChanges.call(this, feed, (records) => records);
    case 'goalProgressChanged': {
      // Goals are few: read them all, and show the most recently changed ones (edited ones first choice).
      const { records } = await walk.call(this, feed, null, pollBudgetMs.call(this));
      const goals = latestStates(records);
      const changed = goals.filter(edited);
      return (changed.length ? changed : goals).slice(-SAMPLE_SIZE);
    }
  }
}

/** The instant of the change a record reports: its deletion for a deletion record, else its latest change. */
const changedAt = (record: IDataObject) =>
  Date.parse(String(record.deleted_at ?? record.updated_at ?? record.created_at));

/**
 * The records of several events as one list, each saying which event it is (`event`), in the order the changes
 * happened; changes of the same millisecond in the order of TRIGGER_EVENTS (a record's creation before its edit
 * before its deletion). Each event's records are already in change order.
 */
export function mergeEvents(found: Array<{ event: TriggerEvent; records: IDataObject[] }>): IDataObject[] {
  return [...found]
    .sort((a, b) => TRIGGER_EVENTS.indexOf(a.event) - TRIGGER_EVENTS.indexOf(b.event))
    .flatMap(({ event, records }) => records.map((record) => ({ ...record, event })))
    .sort((a, b) => changedAt(a) - changedAt(b));
}
