import type { IDataObject } from 'n8n-workflow';

/**
 * One transcript segment as DevData sends it: whole, as the real service does. Only text, speaker and is_user
 * are read here; the other fields (and any a server adds) go out with the segment as they came.
 */
export interface WebhookSegment extends IDataObject {
  id?: string;
  text: string;
  /** The speaker's label, e.g. SPEAKER_01. */
  speaker: string;
  speaker_id?: number;
  is_user: boolean;
  person_id?: string | null;
  /** Seconds from the start of the conversation. */
  start?: number;
  end?: number;
}

/** The item the trigger starts the workflow with. */
export interface TranscriptItem extends IDataObject {
  session_id: string;
  uid: string;
  segments: WebhookSegment[];
  transcript: string;
}

export type PayloadResult = { ok: true; item: TranscriptItem } | { ok: false; reason: string };

const EXPECTED = 'The body must be {"session_id": "…", "segments": [{"text", "speaker", "is_user"}]}';

function isObject(value: unknown): value is IDataObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstString(value: unknown): string {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first.trim() : '';
}

/** `SPEAKER_00: Hello` per segment, `You: …` for the user's own segments, one line each. */
export function transcriptOf(segments: WebhookSegment[]): string {
  return segments
    .map((segment) => `${segment.is_user ? 'You' : segment.speaker || 'Speaker'}: ${segment.text}`)
    .join('\n');
}

/**
 * Reads a webhook call: the segments from the body; session_id and uid from the body, where a signature covers
 * them, each falling back to the query's (the real service sends uid only there). A query naming another session
 * or user than the body is refused, as is anything that is not the documented shape.
 */
export function parsePayload(body: unknown, query: unknown): PayloadResult {
  if (!isObject(body) || !Array.isArray(body.segments)) {
    return { ok: false, reason: `${EXPECTED}: no segments array` };
  }
  const segments: WebhookSegment[] = [];
  for (const [index, segment] of body.segments.entries()) {
    if (!isObject(segment) || typeof segment.text !== 'string') {
      return { ok: false, reason: `${EXPECTED}: segments[${index}] has no text` };
    }
    segments.push({
      ...segment,
      text: segment.text,
      speaker: typeof segment.speaker === 'string' ? segment.speaker : '',
      is_user: segment.is_user === true,
    });
  }
  const params = isObject(query) ? query : {};
  // The body's session_id is the one a signature covers: the query's may only repeat it.
  const sessionId = firstString(body.session_id) || firstString(params.session_id);
  if (!sessionId) return { ok: false, reason: `${EXPECTED}: no session_id` };
  const querySession = firstString(params.session_id);
  if (querySession && querySession !== sessionId) {
    return { ok: false, reason: `${EXPECTED}: the session_id of the query is not the body's` };
  }
  const uid = firstString(body.uid) || firstString(params.uid);
  const queryUid = firstString(params.uid);
  if (queryUid && queryUid !== uid) {
    return { ok: false, reason: `${EXPECTED}: the uid of the query is not the body's` };
  }
  return {
    ok: true,
    item: {
      session_id: sessionId,
      uid,
      segments,
      transcript: transcriptOf(segments),
    },
  };
}
