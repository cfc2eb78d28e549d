import { z } from 'zod';
import { actionItem } from './action-items';
import { afterIdParam, feedQueryRules, orderParam, updatedSinceParam } from './change-feed';
import {
  valuesParam,
  dateBound,
  dateTime,
  instant,
  limitParam,
  offsetParam,
  optionalOrNull,
  queryBool,
} from './common';
import { UnprocessableError } from '../http/http-errors';

/** The source of a conversation a live transcript session made, and of no other. */
export const LIVE_TRANSCRIPT_SOURCE = 'live_transcript';

export const CATEGORIES = [
  'personal',
  'education',
  'health',
  'finance',
  'legal',
  'philosophy',
  'spiritual',
  'science',
  'entrepreneurship',
  'parenting',
  'romantic',
  'travel',
  'inspiration',
  'technology',
  'business',
  'social',
  'work',
  'sports',
  'politics',
  'literature',
  'history',
  'architecture',
  'music',
  'weather',
  'news',
  'entertainment',
  'psychology',
  'real',
  'design',
  'family',
  'economics',
  'environment',
  'other',
] as const;

export const transcriptSegment = z
  .object({
    id: z.string(),
    text: z.string(),
    speaker_id: z.number().int(),
    speaker_name: z.string(),
    is_user: z.boolean(),
    person_id: z.string().nullable().meta({ description: 'The person speaking, when the client named one' }),
    start: z.number().meta({ description: 'Seconds from the start of the conversation' }),
    end: z.number().meta({ description: 'Seconds from the start of the conversation' }),
  })
  .meta({ id: 'TranscriptSegment' });

export const geolocation = z
  .object({
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    address: z.string().max(500).optional(),
    google_place_id: z.string().max(200).optional(),
    location_type: z.string().max(100).optional(),
  })
  .meta({ id: 'Geolocation' });

/** A place sent with a conversation: its optional fields also take null, as the real service answers them. */
const geolocationInput = z.strictObject({
  ...geolocation.shape,
  address: optionalOrNull(geolocation.shape.address.unwrap()),
  google_place_id: optionalOrNull(geolocation.shape.google_place_id.unwrap()),
  location_type: optionalOrNull(geolocation.shape.location_type.unwrap()),
});

/** An action item as a conversation's structured summary shows it: without its id and conversation. */
export const embeddedActionItem = actionItem.omit({ id: true, conversation_id: true });

/** An event found in a conversation (a calendar entry), as the real service models it. */
export const conversationEvent = z
  .object({
    title: z.string(),
    description: z.string(),
    start: dateTime,
    duration: z.number().int().meta({ description: 'Minutes' }),
    created: z.boolean().meta({ description: 'Whether the event was added to a calendar' }),
  })
  .meta({ id: 'ConversationEvent' });

/** The emoji of a conversation whose summary names none (the real service's default). */
export const DEFAULT_EMOJI = '🧠';

export const structured = z
  .object({
    title: z.string(),
    overview: z.string(),
    category: z.string(),
    emoji: z.string().meta({ description: `${DEFAULT_EMOJI} when none was given` }),
    action_items: z.array(embeddedActionItem).optional(),
    events: z.array(conversationEvent),
  })
  .meta({ id: 'Structured' });

/**
 * A conversation's status, values of the real service's: `in_progress` while the live transcript session that made
 * it is open, `completed` otherwise (a conversation created whole is processed at once).
 */
export const CONVERSATION_STATUSES = ['in_progress', 'completed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** What kind of text a conversation created from text holds (the real service's `text_source`). */
export const TEXT_SOURCES = ['audio_transcript', 'message', 'other_text'] as const;

export const conversation = z
  .object({
    id: z.string(),
    created_at: dateTime,
    updated_at: dateTime.meta({
      description:
        'Last change of the conversation itself (title, discarded, starred, folder and its name, ' +
        'transcript); changes to its action items show in their own updated_at',
    }),
    started_at: dateTime,
    finished_at: dateTime,
    language: z.string(),
    source: z.string(),
    status: z.enum(CONVERSATION_STATUSES).meta({
      description:
        'in_progress while the live transcript session that made the conversation is open (its transcript and ' +
        'times still grow), completed once it is finished and for every conversation created whole (the ' +
        'answer of a create says completed)',
    }),
    structured,
    transcript_segments: z.array(transcriptSegment).optional(),
    geolocation: geolocation.optional().meta({ description: 'Absent when the conversation has no place' }),
    folder_id: z.string().nullable(),
    folder_name: z.string().nullable(),
    discarded: z.boolean(),
    starred: z
      .boolean()
      .meta({ description: 'Set by PATCH (an extension of devdata-server); false by default' }),
    text_source: z
      .enum(TEXT_SOURCES)
      .nullable()
      .meta({
        description:
          'What kind of text a conversation created from text holds; null for one created from segments or a ' +
          'live transcript',
      }),
    text_source_spec: z
      .string()
      .nullable()
      .meta({ description: "Where that text came from, as the caller said (e.g. 'email', 'slack')" }),
  })
  .meta({ id: 'Conversation' });

export const listConversationsQuery = z
  .object({
    start_date: dateBound('start')
      .optional()
      .meta({ description: 'Started at or after (date or date-time)' }),
    end_date: dateBound('end').optional().meta({ description: 'Started at or before (date or date-time)' }),
    folder_id: z.string().min(1).optional(),
    categories: valuesParam(
      CATEGORIES,
      'Comma-separated categories; a conversation in any of them is listed',
      { one: 'category', many: 'categories' },
    ),
    starred: queryBool.optional().meta({ description: 'true: starred ones only; false: the others only' }),
    include_transcript: queryBool.prefault(false),
    statuses: valuesParam(
      CONVERSATION_STATUSES,
      'Comma-separated statuses (in_progress, completed); a conversation in any of them is listed. Default (also when empty) ' +
        'completed, as the real service lists only completed conversations, but in_progress,completed with ' +
        'updated_since or order=updated_at (a growing live transcript is a change a sync must see).',
      { one: 'status', many: 'statuses' },
    ),
    include_discarded: queryBool.optional().meta({
      description:
        'Include discarded conversations. Default false, but true with updated_since or order=updated_at (a ' +
        'discard is a change a sync must see); pass false to leave them out.',
    }),
    limit: limitParam(1000, 25),
    offset: offsetParam,
    updated_since: updatedSinceParam,
    order: orderParam('started_at_desc', 'newest started first'),
    after_id: afterIdParam,
  })
  .check(feedQueryRules);

export const getConversationQuery = z.object({ include_transcript: queryBool.prefault(false) });

export const MAX_TITLE = 500;
export const MAX_EVENTS = 100;

/** An event as a caller gives it; what it leaves out takes the real service's defaults. */
const eventInput = z.strictObject({
  title: z.string().max(MAX_TITLE),
  description: z.string().max(5000).default(''),
  start: instant,
  duration: z
    .number()
    .int()
    .min(0)
    .max(525_600)
    .default(30)
    .meta({ description: 'Minutes (at most a year)' }),
  created: z.boolean().default(false),
});

/** Caller-supplied summary fields; whatever is missing is derived from the text. */
const structuredInput = z.strictObject({
  title: z.string().trim().min(1).max(MAX_TITLE).optional(),
  overview: z.string().max(5000).optional(),
  category: z.enum(CATEGORIES).optional(),
  emoji: z.string().max(16).optional(),
  events: z.array(eventInput).max(MAX_EVENTS).optional(),
});

// null stands for "not given" where the real service takes null (its fields are Optional).
const conversationInput = {
  started_at: instant.nullable().optional(),
  finished_at: instant.nullable().optional(),
  // The real service takes an empty language as not given (`request.language or 'en'`), as it takes null.
  language: z
    .string()
    .max(10)
    .superRefine((language, context) => {
      if (language !== '' && language.length < 2)
        context.addIssue({
          code: 'too_small',
          origin: 'string',
          minimum: 2,
          inclusive: true,
          input: language,
          message: 'Too small: expected string to have >=2 characters',
        });
    })
    .nullable()
    .default('en')
    .transform((language) => language || 'en')
    .meta({ description: "Language code, e.g. en; null or '' means en" }),
  source: z
    .string()
    .min(1)
    .max(50)
    .refine((source) => source !== LIVE_TRANSCRIPT_SOURCE, {
      message: `${LIVE_TRANSCRIPT_SOURCE} is the source of the conversations live transcript sessions make: give another, e.g. api`,
    })
    .nullable()
    .default('api')
    .transform((source) => source ?? 'api'),
  geolocation: geolocationInput.nullable().optional(),
  folder_id: z.string().min(1).nullable().optional(),
  structured: structuredInput.optional(),
};

export const createConversationBody = z.strictObject({
  text: z.string().trim().min(1).max(200_000),
  text_source: z.enum(TEXT_SOURCES).default('other_text'),
  text_source_spec: z
    .string()
    .max(200)
    .nullable()
    .optional()
    .meta({ description: "Where the text came from, e.g. 'email', 'slack', 'whatsapp'" }),
  ...conversationInput,
});

export const MAX_SEGMENTS = 500;
/** The longest text of a segment, in characters. */
const MAX_SEGMENT_TEXT = 10_000;
/**
 * The most segments, and characters of their text, a live transcript session's conversation holds: its whole
 * transcript is rewritten with each batch, so it needs a bound. As much text as the largest create from segments
 * (500 segments of 10,000 characters), in up to 10,000 segments.
 */
export const MAX_SESSION_SEGMENTS = 10_000;
export const MAX_SESSION_TEXT = MAX_SEGMENTS * MAX_SEGMENT_TEXT;
/**
 * The latest a segment may start or end, in seconds from the conversation's start: a year. The conversation's
 * times are derived from them, so a bound keeps those instants storable (a 1e308 would overflow them).
 */
const MAX_SEGMENT_SECONDS = 31_536_000;
/** A speaker label that names the speaker's number (`SPEAKER_01`, `Speaker 2`): the number is its speaker_id. */
export const SPEAKER_LABEL = /^speaker[\s_-]*(\d+)$/i;

export const segmentInput = z
  .strictObject({
    id: z.string().max(200).nullable().optional().meta({
      description:
        'Ignored: the server gives each stored segment its own id (accepted so that segments a webhook call carried can be sent back as they are)',
    }),
    text: z.string().trim().min(1).max(MAX_SEGMENT_TEXT),
    speaker: z
      .string()
      .max(100)
      .nullable()
      .optional()
      .meta({ description: 'Speaker label, e.g. SPEAKER_00' }),
    speaker_id: z.number().int().min(0).nullable().optional(),
    speaker_name: z.string().max(100).nullable().optional().meta({
      description:
        "The speaker's name as a conversation's segments carry it, used when `speaker` is not given (so segments read from a conversation can be sent back as they are)",
    }),
    is_user: z.boolean().default(false),
    person_id: z.string().max(200).nullable().optional().meta({
      description: 'The person speaking (e.g. the id of one of your people), stored and returned as given',
    }),
    start: z.number().min(0).max(MAX_SEGMENT_SECONDS),
    end: z.number().min(0).max(MAX_SEGMENT_SECONDS),
  })
  .superRefine((segment, ctx) => {
    // Without a speaker_id, the label the server reads it from (speaker, else speaker_name) must name a number it
    // can store and answer exactly.
    if (segment.speaker_id != null) return;
    const field = segment.speaker?.trim()
      ? 'speaker'
      : segment.speaker_name?.trim()
        ? 'speaker_name'
        : undefined;
    const parsed = field && SPEAKER_LABEL.exec(segment[field]!.trim());
    if (parsed && !Number.isSafeInteger(Number(parsed[1]))) {
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `A SPEAKER_n label's number must be at most ${Number.MAX_SAFE_INTEGER} (the largest speaker_id), or give speaker_id`,
      });
    }
  });

/**
 * Refuses (422 at its `end`) the first segment that ends before it starts, which the segment's schema cannot
 * see; `field` is the body field holding the segments.
 */
export function checkSegmentTimes(segments: { start: number; end: number }[], field: string): void {
  const i = segments.findIndex((segment) => segment.end < segment.start);
  if (i >= 0) throw UnprocessableError.at(['body', field, i, 'end'], 'end must not be before start');
}

export const createFromSegmentsBody = z.strictObject({
  transcript_segments: z.array(segmentInput).min(1).max(MAX_SEGMENTS),
  client_session_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Idempotency key: a retry with the same value returns the same conversation' }),
  ...conversationInput,
});

export const updateConversationBody = z.strictObject({
  title: optionalOrNull(z.string().trim().min(1).max(MAX_TITLE)),
  discarded: optionalOrNull(z.boolean()),
  starred: z.boolean().optional().meta({ description: 'An extension of devdata-server' }),
  folder_id: z
    .string()
    .min(1)
    .nullable()
    .optional()
    .meta({ description: 'Folder to move to; null for none' }),
});
