// How a transcript is stored: the segments as given become stored segments with speaker labels, and the text
// gives the summary fields the caller left out. Shared by conversations created whole and live sessions.
import type { z } from 'zod';
import type { createFromSegmentsBody, structured, transcriptSegment } from '../contract/conversations';
import { newId } from '../ids';

export type Segment = z.infer<typeof transcriptSegment>;
export type SegmentInput = z.infer<typeof createFromSegmentsBody>['transcript_segments'][number];
/** The summary as stored: the action items and events are not part of it. */
export type StoredStructured = Omit<z.infer<typeof structured>, 'action_items' | 'events'>;
export type StructuredInput = z.infer<typeof createFromSegmentsBody>['structured'];

const TITLE_WORDS = 8;
const TITLE_MAX = 200;
const OVERVIEW_MAX = 300;
const ELLIPSIS = '…';
const SPEAKER_LABEL = /^speaker[\s_-]*(\d+)$/i;

function cut(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1).trimEnd() + ELLIPSIS;
}

/** The summary fields: what the caller supplied wins; the rest is derived from the text. */
export function summarize(text: string, given: StructuredInput): StoredStructured {
  const words = text.split(/\s+/).filter(Boolean);
  const derivedTitle = words.slice(0, TITLE_WORDS).join(' ') + (words.length > TITLE_WORDS ? ELLIPSIS : '');
  return {
    title: given?.title ?? cut(derivedTitle, TITLE_MAX),
    overview: given?.overview ?? cut(words.join(' '), OVERVIEW_MAX),
    category: given?.category ?? 'other',
    ...(given?.emoji !== undefined ? { emoji: given.emoji } : {}),
  };
}

/** A segment as stored: its id, and a speaker id and name from the label ("SPEAKER_01") when not given. */
export function toSegment(input: SegmentInput, now: number): Segment {
  const label = input.speaker?.trim() || undefined;
  const parsed = label ? SPEAKER_LABEL.exec(label) : null;
  const speakerId = input.speaker_id ?? (parsed ? Number(parsed[1]) : 0);
  return {
    id: newId(now),
    text: input.text,
    speaker_id: speakerId,
    speaker_name: label ?? `Speaker ${speakerId}`,
    is_user: input.is_user,
    start: input.start,
    end: input.end,
  };
}
