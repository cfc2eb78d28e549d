// Keeping a tool's answer within a byte budget: what counts is the result as sent (its JSON text and its
// structuredContent together, in UTF-8), so a transcript in Japanese or emoji is held to the same size as one in
// English. Transcripts are cut at a segment and say where the next part starts; long summary texts are cut,
// ending in …; a list that still does not fit shows fewer records. Each cut is named in the answer's `omitted`,
// with the call that gets what was left out.
import { UnprocessableError } from '../http/http-errors';
import type { Conversation, Segment } from '../store/conversations';

/** The answer as JSON text (what most clients hand the model) and as structured content. */
export function toolAnswer(value: unknown) {
  const structured = (
    typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { result: value }
  ) as Record<string, unknown>;
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}

/** The bytes of the tool result that answers `value`, as sent. */
function resultBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(toolAnswer(value)));
}

/** The first `chars` code points of `text` and …, or `text` when it is not longer. */
function cutText(text: string, chars: number): string {
  const points = Array.from(text);
  return points.length <= chars ? text : `${points.slice(0, chars).join('')}…`;
}

/** How hard a summary is cut: the longest text kept, and how many events and action items. */
interface SummaryCut {
  chars: number;
  items: number;
}

/** Each cut harder than the one before; the last keeps any summary to a few kB. */
const SUMMARY_CUTS: SummaryCut[] = [
  { chars: 2000, items: 100 },
  { chars: 1000, items: 100 },
  { chars: 500, items: 50 },
  { chars: 200, items: 20 },
  { chars: 100, items: 10 },
  { chars: 50, items: 5 },
];

type Structured = Conversation['structured'];

function cutStructured(structured: Structured, { chars, items }: SummaryCut): Structured {
  return {
    ...structured,
    title: cutText(structured.title, chars),
    overview: cutText(structured.overview, chars),
    events: structured.events.slice(0, items).map((event) => ({
      ...event,
      title: cutText(event.title, chars),
      description: cutText(event.description, chars),
    })),
    ...(structured.action_items && {
      action_items: structured.action_items
        .slice(0, items)
        .map((item) => ({ ...item, description: cutText(item.description, chars) })),
    }),
  };
}

function describeCut({ chars, items }: SummaryCut): string {
  return (
    `summary texts (title, overview, events' and action items' titles and descriptions) longer than ${chars} ` +
    `characters are cut, ending in …, and events and action items past the first ${items} left out`
  );
}

/** How a record's summary is cut (a conversation's, or a search result's conversation's). */
type SummaryCutter<R> = (record: R, cut: SummaryCut) => R;

export const cutConversationSummary = <R extends { structured: Structured }>(
  record: R,
  cut: SummaryCut,
): R => ({
  ...record,
  structured: cutStructured(record.structured, cut),
});

/**
 * `records` with their summaries cut as little as `fits` allows (the same cut for each, which it is told), or cut
 * the hardest when even that does not fit; and the cut made, if any.
 */
function cutSummaries<R>(
  records: R[],
  cutter: SummaryCutter<R>,
  fits: (shown: R[], cut?: SummaryCut) => boolean,
): { records: R[]; cut?: SummaryCut } {
  if (fits(records)) return { records };
  let cut = SUMMARY_CUTS[0];
  let shown = records;
  for (cut of SUMMARY_CUTS) {
    shown = records.map((record) => cutter(record, cut));
    if (fits(shown, cut)) break;
  }
  return { records: shown, cut };
}

/**
 * A segment without its own id; the speaker's ids tie what was said to get_people's people (person_id only when
 * the segment names one).
 */
function compactSegment({ text, speaker_name, speaker_id, person_id, is_user, start, end }: Segment) {
  return {
    text,
    speaker_name,
    speaker_id,
    ...(person_id === null ? {} : { person_id }),
    is_user,
    start,
    end,
  };
}

/**
 * One conversation as get_conversation_by_id answers it within `budget` bytes: its summary (cut only when it
 * alone would take more than half the budget, or when `count` is 0 the answer it is in more than all of it) and the
 * transcript from segment `offset`, that segment's text from character `textOffset` (code points), at most `count`
 * segments, as many as fit (a first one too long to fit is cut, ending in …, with the character to read on from).
 * Unless `count` is 0 already, a cut summary's note says that asking for no segments gives more of it.
 */
export function conversationWithin(
  conversation: Conversation,
  {
    offset,
    textOffset,
    count,
    budget,
  }: { offset: number; textOffset: number; count: number; budget: number },
) {
  const { transcript_segments: segments = [], ...record } = conversation;
  const total = segments.length;
  const answer = (
    summarized: typeof record,
    cut: SummaryCut | undefined,
    shown: ReturnType<typeof compactSegment>[],
    textCutAt?: { at: number; of: number },
  ) => {
    const next = offset + shown.length < total ? offset + shown.length : null;
    const omitted = [
      ...(cut
        ? [
            `In the summary, ${describeCut(cut)}` +
              (count === 0 ? '.' : ': ask with max_transcript_segments 0 for more of it.'),
          ]
        : []),
      ...(textCutAt
        ? [
            `Segment ${offset}'s text is cut to fit at character ${textCutAt.at} of ${textCutAt.of}, ending in …: ` +
              `call get_conversation_by_id with transcript_segment_offset ${offset} and transcript_text_offset ` +
              `${textCutAt.at} for the rest of it.`,
          ]
        : []),
      ...(next === null
        ? []
        : [
            `Transcript segments ${next}–${total - 1} are not shown: call get_conversation_by_id with ` +
              `transcript_segment_offset ${next} for the next ones.`,
          ]),
    ];
    return {
      ...summarized,
      transcript_segments: shown,
      transcript_segments_total: total,
      transcript_segment_offset: offset,
      transcript_next_segment_offset: next,
      ...(textCutAt && { transcript_next_text_offset: textCutAt.at }),
      ...(omitted.length > 0 && { omitted: omitted.join(' ') }),
    };
  };
  // Half is left for the transcript; when none of it is wanted the summary may take the whole answer, which is
  // then measured with its other fields and notes, as sent.
  const {
    records: [summarized],
    cut,
  } = cutSummaries([record], cutConversationSummary, ([shown], tried) =>
    count === 0 ? resultBytes(answer(shown, tried, [])) <= budget : resultBytes(shown) <= budget / 2,
  );
  const window = segments.slice(offset, offset + count).map(compactSegment);
  // The first segment from textOffset on: the rest of one a read before cut (a conversation made from a text is
  // one segment of up to 200,000 characters, more than any answer holds).
  const firstText = Array.from(window[0]?.text ?? '');
  if (textOffset > 0 && textOffset >= firstText.length)
    throw UnprocessableError.at(
      ['transcript_text_offset'],
      window.length === 0
        ? `transcript_text_offset: no segment is shown from transcript_segment_offset ${offset} to start in`
        : `transcript_text_offset: segment ${offset}'s text has ${firstText.length} characters; give less`,
    );
  if (textOffset > 0) window[0] = { ...window[0], text: firstText.slice(textOffset).join('') };
  const build = (shown: ReturnType<typeof compactSegment>[], textCutAt?: { at: number; of: number }) =>
    answer(summarized, cut, shown, textCutAt);
  // Each segment adds its JSON to structuredContent and, escaped, to the text: counted here, then measured whole.
  const segmentBytes = (segment: object) =>
    Buffer.byteLength(JSON.stringify(segment)) +
    Buffer.byteLength(JSON.stringify(JSON.stringify(segment))) +
    2;
  let size = resultBytes(build([]));
  let kept = 0;
  while (kept < window.length && size + segmentBytes(window[kept]) <= budget) {
    size += segmentBytes(window[kept]);
    kept += 1;
  }
  // The notes' lengths change with the segments shown: drop the last until the whole answer fits.
  while (kept > 0 && resultBytes(build(window.slice(0, kept))) > budget) kept -= 1;
  if (kept > 0 || window.length === 0) return build(window.slice(0, kept));
  // Not even the first segment fits: the most of its text that does, and where the rest starts.
  const [first] = window;
  const withText = (chars: number) =>
    build([{ ...first, text: cutText(first.text, chars) }], {
      at: textOffset + chars,
      of: firstText.length,
    });
  let [low, high] = [0, Array.from(first.text).length];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (resultBytes(withText(middle)) <= budget) low = middle;
    else high = middle - 1;
  }
  return withText(low);
}

/**
 * `records` of a list answered as `{[field]: records}` within `budget` bytes: their conversations' summaries (with
 * `cutter`) cut as little as needed, then, if it still does not fit, only the first records, with `more` saying
 * how to get the others.
 */
export function listWithin<R extends object>(
  field: string,
  records: R[],
  { budget, more, cutter }: { budget: number; more: (shown: number) => string; cutter?: SummaryCutter<R> },
) {
  const answer = (shown: R[], note?: string) => ({ [field]: shown, ...(note && { omitted: note }) });
  const { records: shown, cut } = cutter
    ? cutSummaries(records, cutter, (cutRecords) => resultBytes(answer(cutRecords)) <= budget)
    : { records, cut: undefined };
  const summaryNote = cut
    ? `In each conversation's summary, ${describeCut(cut)}: get_conversation_by_id with its id gives it whole.`
    : undefined;
  // One record is always shown: a memory or an action item has no tool of its own to read it by.
  if (shown.length <= 1 || resultBytes(answer(shown, summaryNote)) <= budget)
    return answer(shown, summaryNote);
  // The most records that fit, with the note saying how many and how to get the others.
  const noted = (count: number) =>
    answer(
      shown.slice(0, count),
      [
        summaryNote,
        `Only the first ${count} of ${records.length} fit in this answer's ${budget} bytes: ${more(count)}.`,
      ]
        .filter(Boolean)
        .join(' '),
    );
  let [low, high] = [1, shown.length - 1];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (resultBytes(noted(middle)) <= budget) low = middle;
    else high = middle - 1;
  }
  return noted(low);
}
