// Event webhooks under the developer API: the subscriptions, their deliveries, and the events' wire form. The
// store keeps each event's record as its repository returned it; `eventBody` maps it to what the developer API
// answers for that record (the same response schema the routes write), when the event is sent.
import { z } from 'zod';
import { actionItem } from './action-items';
import { dateTime, distinctValues, httpUrl, limitParam, MAX_WEBHOOK_URL_LENGTH } from './common';
import { conversation, transcriptSegment } from './conversations';
import { cursorPageOf, cursorParam } from './cursor';
import { goal } from './goals';
import { memory } from './memories';
import { notification } from './notifications';
import type { Scope } from './scopes';

export const EVENT_TYPES = [
  'conversation.created',
  'conversation.updated',
  'conversation.deleted',
  'memory.created',
  'memory.updated',
  'memory.deleted',
  'action_item.created',
  'action_item.updated',
  'action_item.completed',
  'action_item.deleted',
  'goal.created',
  'goal.updated',
  'goal.progress_recorded',
  'notification.pushed',
  'transcript.segments_received',
  'ping',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The read scope an event's data needs. A subscription receives that data, so only a key that could read it may
 * subscribe to the event (ping carries none).
 */
export const EVENT_READ_SCOPES: Record<EventType, Scope | null> = {
  'conversation.created': 'conversations:read',
  'conversation.updated': 'conversations:read',
  'conversation.deleted': 'conversations:read',
  'memory.created': 'memories:read',
  'memory.updated': 'memories:read',
  'memory.deleted': 'memories:read',
  'action_item.created': 'action_items:read',
  'action_item.updated': 'action_items:read',
  'action_item.completed': 'action_items:read',
  'action_item.deleted': 'action_items:read',
  'goal.created': 'goals:read',
  'goal.updated': 'goals:read',
  'goal.progress_recorded': 'goals:read',
  'notification.pushed': 'notifications:read',
  'transcript.segments_received': 'conversations:read',
  ping: null,
};

/** Subscribes to every event type. */
export const ALL_EVENTS = '*';
/** What a subscription lists: event types, or `*`. */
export type EventSelector = EventType | typeof ALL_EVENTS;

const eventSelector = z.enum([...EVENT_TYPES, ALL_EVENTS]).meta({
  description: `An event type, or ${ALL_EVENTS} for all of them`,
});

const webhookUrl = httpUrl(MAX_WEBHOOK_URL_LENGTH).meta({
  description: 'Where events are POSTed: https to a public address (loopback in development mode)',
});
const events = distinctValues(eventSelector, (list) => list.min(1)).meta({
  description: 'The events to send; a type listed twice counts once',
});
const description = z.string().max(500).nullable();

export const createWebhookBody = z.strictObject({
  url: webhookUrl,
  events,
  description: description.optional(),
});

export const updateWebhookBody = z.strictObject({
  url: webhookUrl.optional(),
  events: events.optional(),
  description: description.optional(),
  active: z
    .boolean()
    .optional()
    .meta({ description: 'false pauses deliveries; true resumes them (and ends a disablement)' }),
});

export const webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(eventSelector),
    description: z.string().nullable(),
    active: z.boolean().meta({ description: 'false when paused, or disabled after failing for a day' }),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Webhook' });

export const webhookWithSecret = webhook
  .extend({
    secret: z.string().meta({
      description: 'whsec_ + base64 of the signing key (Standard Webhooks); shown only here',
    }),
  })
  .meta({ id: 'WebhookWithSecret' });

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const webhookDelivery = z
  .object({
    id: z.string(),
    event_id: z.string().meta({ description: 'The webhook-id header and the body id: the idempotency key' }),
    event_type: z.enum(EVENT_TYPES),
    status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: dateTime.nullable(),
    created_at: dateTime,
    delivered_at: dateTime.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const listDeliveriesQuery = z.object({
  limit: limitParam(100, 25),
  cursor: cursorParam(),
});

export const deliveriesPage = cursorPageOf('deliveries', webhookDelivery);

/** A deleted record's event data. */
const deletion = z.object({ id: z.string(), deleted_at: dateTime });

/** Segments a live transcript session received. */
export const segmentsReceived = z.object({
  session_id: z.string(),
  conversation_id: z.string(),
  segments: z.array(transcriptSegment),
});

const ping = z.object({ webhook_id: z.string() });

const DATA: Record<EventType, z.ZodType> = {
  'conversation.created': conversation,
  'conversation.updated': conversation,
  'conversation.deleted': deletion,
  'memory.created': memory,
  'memory.updated': memory,
  'memory.deleted': deletion,
  'action_item.created': actionItem,
  'action_item.updated': actionItem,
  'action_item.completed': actionItem,
  'action_item.deleted': deletion,
  'goal.created': goal,
  'goal.updated': goal,
  'goal.progress_recorded': goal,
  'notification.pushed': notification,
  'transcript.segments_received': segmentsReceived,
  ping,
};

/**
 * The body of an event as sent: `{type, id, timestamp, data}`, `data` being the record as the developer API
 * answers it. A record stored before the contract grew a field is sent as stored rather than not at all.
 */
export function eventBody(type: EventType, id: string, timestamp: string, record: unknown): string {
  const parsed = DATA[type].safeParse(record);
  return JSON.stringify({ type, id, timestamp, data: parsed.success ? parsed.data : record });
}
