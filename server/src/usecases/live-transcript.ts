// Live transcript sessions: segments arrive in batches while a conversation goes on. The session's conversation
// is the user's conversation with `client_session_id` = the session id, created by the first batch and flagged
// `live` until the session is finished. Each batch goes on to the webhooks of the apps the user installed.
import type { WebhookSegment } from '../contract/proactive';
import type { Dispatcher } from '../proactive/dispatcher';
import type { Repositories } from '../store';
import type { Segment, SegmentInput } from '../store/conversations';

/**
 * A stored segment as the webhook call carries it: whole, as the real service sends it, with the speaker as its
 * label (`SPEAKER_01`, the number two digits at least) — apps written for the real service read the speaker's
 * number from after the `_` and fail on a display name.
 */
export function webhookSegmentOf(segment: Segment): WebhookSegment {
  return {
    id: segment.id,
    text: segment.text,
    speaker: `SPEAKER_${String(segment.speaker_id).padStart(2, '0')}`,
    speaker_id: segment.speaker_id,
    is_user: segment.is_user,
    person_id: segment.person_id,
    start: segment.start,
    end: segment.end,
  };
}

export function liveTranscripts(
  { conversations }: Pick<Repositories, 'conversations'>,
  dispatcher: Dispatcher,
) {
  return {
    /**
     * Stores the segments in the session's conversation and queues one webhook call per app; the calls start
     * on a later tick, so the caller answers first and never waits for a webhook. Conflict when the session
     * is finished.
     */
    async append(userId: string, sessionId: string, segments: SegmentInput[]) {
      const { conversationId, added } = await conversations.appendToSession(userId, sessionId, segments);
      const targets = await dispatcher.targets(userId);
      const payload = added.map(webhookSegmentOf);
      for (const target of targets) {
        dispatcher.dispatch({ ...target, userId, sessionId, segments: payload });
      }
      return { conversationId, dispatched: targets.length };
    },

    /** Finishes the session (NotFound "Transcript session" when there is none); finishing twice is the same. */
    finish: (userId: string, sessionId: string) => conversations.finishSession(userId, sessionId),
  };
}
