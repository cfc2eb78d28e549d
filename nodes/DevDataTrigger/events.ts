import type { INode, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { listValues } from '../shared';

/** Subscribes to every event type, those added later included. */
export const ALL_EVENTS = '*';

/**
 * The event types a subscription can ask for, as the server names them. The nodes panel lists each as a trigger
 * of the DevData app ("On Action Item Completed"); `*` it leaves out.
 */
export const EVENT_OPTIONS: INodePropertyOptions[] = [
  {
    name: '*',
    value: ALL_EVENTS,
    description: 'Every event, including types the server adds later',
  },
  {
    name: 'Action Item Completed',
    value: 'action_item.completed',
    description: 'An action item was marked completed (only this event, not Action Item Updated)',
  },
  {
    name: 'Action Item Created',
    value: 'action_item.created',
    description: 'An action item was created, alone or in a batch',
  },
  {
    name: 'Action Item Deleted',
    value: 'action_item.deleted',
    description: 'An action item was deleted; the item holds its ID and deleted_at',
  },
  {
    name: 'Action Item Updated',
    value: 'action_item.updated',
    description:
      'An action item was edited or reopened, or its conversation was deleted (its conversation_id becomes null)',
  },
  {
    name: 'Conversation Created',
    value: 'conversation.created',
    description:
      "A conversation was created, or a live transcript's first segments started one (its status then in_progress)",
  },
  {
    name: 'Conversation Deleted',
    value: 'conversation.deleted',
    description: 'A conversation was deleted; the item holds its ID and deleted_at',
  },
  {
    name: 'Conversation Updated',
    value: 'conversation.updated',
    description:
      'A conversation was renamed, starred, moved (also out of a deleted folder) or discarded, its folder was renamed, or its live session finished (the item then holds the whole transcript)',
  },
  {
    name: 'Goal Created',
    value: 'goal.created',
    description: 'A goal was created',
  },
  {
    name: 'Goal Progress Recorded',
    value: 'goal.progress_recorded',
    description: 'Progress was recorded on a goal; the item is the goal with its new current value',
  },
  {
    name: 'Goal Updated',
    value: 'goal.updated',
    description: 'A goal was edited or abandoned',
  },
  {
    name: 'Memory Created',
    value: 'memory.created',
    description: 'A memory was created',
  },
  {
    name: 'Memory Deleted',
    value: 'memory.deleted',
    description: 'A memory was deleted; the item holds its ID and deleted_at',
  },
  {
    name: 'Memory Updated',
    value: 'memory.updated',
    description: 'A memory was edited',
  },
  {
    name: 'Notification Pushed',
    value: 'notification.pushed',
    description: "A notification reached the user's inbox",
  },
  {
    name: 'Ping',
    value: 'ping',
    description: 'A test event the server sends when the subscription is pinged',
  },
  {
    name: 'Transcript Segments Received',
    value: 'transcript.segments_received',
    description: 'Live transcript segments arrived for a session',
  },
];

/**
 * The events to subscribe to, as sent to the server: `*` alone when chosen (it covers the rest), otherwise each
 * chosen type once, sorted, so that the same choice always compares equal.
 */
export function subscribedEvents(chosen: string[]): string[] {
  if (chosen.includes(ALL_EVENTS)) return [ALL_EVENTS];
  return [...new Set(chosen)].sort();
}

/** Whether a subscription to `events` (as subscribedEvents gives them) covers an event of this type. */
export function covers(events: string[], type: string): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}

/** The Events parameter: the event types the trigger subscribes to. */
export const eventsParameter: INodeProperties = {
  displayName: 'Events',
  name: 'events',
  type: 'multiOptions',
  noDataExpression: true,
  required: true,
  default: [],
  options: EVENT_OPTIONS,
  description:
    'The changes that start the workflow, one execution per change. Each item is the record as the DevData API returns it (the DevData node’s output with Simplify off; for deletions only its ID and deleted_at), plus <code>event</code> (e.g. action_item.completed), <code>event_id</code> and <code>event_timestamp</code>.',
};

/** The events chosen in the Events parameter (its value), as subscribedEvents sends them to the server. */
export function chosenEvents(node: INode, value: unknown): string[] {
  return subscribedEvents(listValues(node, value, eventsParameter.displayName));
}
