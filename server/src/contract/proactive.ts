import { z } from 'zod';
import { dateTime, httpUrl, limitParam, MAX_WEBHOOK_URL_LENGTH, textIssue } from './common';
import { segmentInput } from './conversations';
import { cursorPageOf, cursorParam } from './cursor';

// Live transcript ingestion (developer API).

export const MAX_LIVE_SEGMENTS = 500;

export const sessionParams = z.object({
  session_id: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w.:-]+$/, 'letters, digits and . _ : - only'),
});

export const appendSegmentsBody = z.strictObject({
  segments: z.array(segmentInput).min(1).max(MAX_LIVE_SEGMENTS),
});

export const segmentsAccepted = z
  .object({
    session_id: z.string(),
    conversation_id: z.string(),
    dispatched: z.number().int().meta({ description: 'Number of app webhooks these segments are sent to' }),
  })
  .meta({ id: 'SegmentsAccepted' });

export const sessionFinished = z
  .object({ session_id: z.string(), conversation_id: z.string(), finished_at: dateTime })
  .meta({ id: 'SessionFinished' });

// The webhook call the service makes, and the app's reply.

/**
 * A segment as the webhook call carries it: whole, as the real service sends it (the interface's text, speaker
 * and is_user are a subset). `speaker` is the label form (`SPEAKER_01`), whose number apps written for the real
 * service parse; the speaker's display name is not sent.
 */
export const webhookSegment = z.object({
  id: z.string(),
  text: z.string(),
  speaker: z.string().regex(/^SPEAKER_\d{2,}$/),
  speaker_id: z.number().int(),
  is_user: z.boolean(),
  person_id: z.string().nullable(),
  start: z.number(),
  end: z.number(),
});
export type WebhookSegment = z.infer<typeof webhookSegment>;
export const webhookPayload = z
  .object({ session_id: z.string(), uid: z.string(), segments: z.array(webhookSegment) })
  .meta({ id: 'WebhookPayload' });

/** A reply `message` is pushed when it is longer than this many characters, as the real service does. */
export const MESSAGE_MIN_EXCLUSIVE = 5;

/** Text that cannot be stored and read back unchanged (a NUL, a lone surrogate) is refused, never altered. */
const refuseUnstorableText = (value: unknown, ctx: z.RefinementCtx) => {
  const issue = textIssue(value);
  if (issue) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.msg });
};
const refuseUnstorableMessage = (reply: { message?: string | null }, ctx: z.RefinementCtx) =>
  refuseUnstorableText({ message: reply.message }, ctx);

/** A reply's `notification`: a prompt template and the scopes whose variables it uses. */
export const replyNotification = z
  .object({
    prompt: z.string(),
    params: z.array(z.string()).default([]),
  })
  .superRefine(refuseUnstorableText);

const replyEnvelope = {
  session_id: z.unknown().optional(),
  message: z.string().nullable().optional(),
};

/**
 * The app's reply. `session_id` may be anything or absent: the real service never reads it, so neither do we.
 * `message` is pushed as it is; `notification` goes through the template and generation. `params` names are
 * checked against the app's and the user's scopes, not here.
 */
export const webhookReply = z
  .object({ ...replyEnvelope, notification: replyNotification.nullable().optional() })
  .superRefine(refuseUnstorableMessage);

/**
 * The reply as the pipeline reads it: its `notification` is checked on its own (`replyNotification`), so that a
 * malformed one does not cost the message, which the real service pushes before it reads the notification.
 */
export const webhookReplyParts = z
  .object({ ...replyEnvelope, notification: z.unknown().optional() })
  .superRefine(refuseUnstorableMessage);
export type WebhookReplyParts = z.infer<typeof webhookReplyParts>;
export type ReplyNotification = z.infer<typeof replyNotification>;

// Delivery records.

export const OUTCOMES = [
  'pushed',
  'message_pushed',
  'no_notification',
  'capability_missing',
  'not_installed',
  'scopes_not_granted',
  'invalid_reply',
  'prompt_too_short',
  'prompt_too_long',
  'generation_failed',
  'generated_too_short',
  'rate_limited',
  'http_error',
  'timeout',
  'network_error',
  'circuit_open',
  'backlog_full',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const delivery = z
  .object({
    id: z.string(),
    app_id: z.string(),
    user_id: z.string(),
    session_id: z.string(),
    url: z.string(),
    status_code: z.number().int().nullable().meta({ description: 'null when no HTTP answer came' }),
    latency_ms: z.number().int(),
    outcome: z.enum(OUTCOMES),
    detail: z.string().nullable().meta({ description: 'Why, in words, when not pushed' }),
    notification_id: z.string().nullable(),
    created_at: dateTime,
  })
  .meta({ id: 'Delivery' });

export const listDeliveriesQuery = z.object({
  limit: limitParam(100, 25),
  cursor: cursorParam(),
});

export const adminDeliveriesQuery = listDeliveriesQuery.extend({
  app_id: z.string().min(1).optional(),
  user_id: z.string().min(1).optional(),
});

export const deliveriesPage = cursorPageOf('deliveries', delivery);

// Webhook registration (app secret).

export const webhookConfig = z
  .object({
    triggers_on: z.literal('transcript_processed'),
    webhook_url: httpUrl().nullable(),
  })
  .meta({ id: 'WebhookConfig' });

export const putWebhookBody = z.strictObject({
  webhook_url: httpUrl(MAX_WEBHOOK_URL_LENGTH),
  triggers_on: z.literal('transcript_processed').default('transcript_processed'),
});
