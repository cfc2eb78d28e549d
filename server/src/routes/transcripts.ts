import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerId, scoped } from '../auth/hooks';
import { errors } from '../contract/common';
import { appendSegmentsBody, segmentsAccepted, sessionFinished, sessionParams } from '../contract/proactive';
import { checkSegmentTimes } from '../contract/conversations';

const write = scoped('conversations:write', ['Transcripts']);

/**
 * Live transcript sessions: segments arrive in batches while a conversation goes on. The session's
 * conversation is the user's conversation with `client_session_id` = the session id, created by the first
 * batch and flagged `live` until the session is finished. Each batch goes on to the apps' webhooks after
 * the request is answered.
 */
const transcripts: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.conversations;

  app.post(
    '/transcripts/:session_id/segments',
    write({
      summary: "Append live transcript segments to a session; they are sent to the apps' webhooks",
      description:
        'Answers 202 at once; the webhook calls happen afterwards and are recorded as deliveries. ' +
        'A finished session refuses further segments with 409.',
      params: sessionParams,
      body: appendSegmentsBody,
      response: { 202: segmentsAccepted, ...errors(401, 403, 409, 422, 429) },
    }),
    async (request, reply) => {
      const userId = callerId(request);
      const sessionId = request.params.session_id;
      const input = request.body.segments;
      checkSegmentTimes(input, 'segments');
      const { conversationId, added } = await repository.appendToSession(userId, sessionId, input);

      const targets = await app.dispatcher.targets(userId);
      const payload = added.map((s) => ({ text: s.text, speaker: s.speaker_name, is_user: s.is_user }));
      // Queued calls start on a later tick: the 202 goes out first and never waits for a webhook.
      for (const target of targets) {
        app.dispatcher.dispatch({ ...target, userId, sessionId, segments: payload });
      }
      return reply
        .code(202)
        .send({ session_id: sessionId, conversation_id: conversationId, dispatched: targets.length });
    },
  );

  app.post(
    '/transcripts/:session_id/finish',
    write({
      summary: 'Finish a live transcript session; later segments for it are refused',
      description: 'Finishing an already finished session answers the same again.',
      params: sessionParams,
      response: { 200: sessionFinished, ...errors(401, 403, 404, 422, 429) },
    }),
    async (request) => {
      const sessionId = request.params.session_id;
      const { conversationId, finishedAt } = await repository.finishSession(callerId(request), sessionId);
      return { session_id: sessionId, conversation_id: conversationId, finished_at: finishedAt };
    },
  );
};

export default transcripts;
