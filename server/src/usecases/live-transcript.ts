// Live transcript sessions: segments arrive in batches while a conversation goes on. The session's conversation
// is the user's conversation with `client_session_id` = the session id, created by the first batch and flagged
// `live` until the session is finished. Each batch goes on to the webhooks of the apps the user installed.
import type { Dispatcher } from '../proactive/dispatcher';
import type { Repositories } from '../store';
import type { SegmentInput } from '../store/conversations';

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
      const payload = added.map((s) => ({ text: s.text, speaker: s.speaker_name, is_user: s.is_user }));
      for (const target of targets) {
        dispatcher.dispatch({ ...target, userId, sessionId, segments: payload });
      }
      return { conversationId, dispatched: targets.length };
    },

    /** Finishes the session (NotFound "Transcript session" when there is none); finishing twice is the same. */
    finish: (userId: string, sessionId: string) => conversations.finishSession(userId, sessionId),
  };
}
