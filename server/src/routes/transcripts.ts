import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerId, scoped } from '../auth/hooks';
import { errors } from '../contract/common';
import { appendSegmentsBody, segmentsAccepted, sessionFinished, sessionParams } from '../contract/proactive';
import { checkSegmentTimes, MAX_SESSION_SEGMENTS, MAX_SESSION_TEXT } from '../contract/conversations';
import { liveTranscripts } from '../usecases/live-transcript';

const write = scoped('conversations:write', ['Transcripts']);

/** Live transcript sessions (see usecases/live-transcript.ts): HTTP only. */
const transcripts: FastifyPluginAsyncZod = async (app) => {
  const sessions = liveTranscripts(app.repositories, app.dispatcher);

  app.post(
    '/transcripts/:session_id/segments',
    write({
      summary: "Append live transcript segments to a session; they are sent to the apps' webhooks",
      description:
        'Answers 202 at once; the webhook calls happen afterwards and are recorded as deliveries. ' +
        'A finished session refuses further segments with 409, and so does a session these segments would take ' +
        `past ${MAX_SESSION_SEGMENTS} segments or ${MAX_SESSION_TEXT} characters of text.`,
      params: sessionParams,
      body: appendSegmentsBody,
      response: { 202: segmentsAccepted, ...errors(401, 403, 409, 422, 429) },
    }),
    async (request, reply) => {
      const sessionId = request.params.session_id;
      checkSegmentTimes(request.body.segments, 'segments');
      const { conversationId, dispatched } = await sessions.append(
        callerId(request),
        sessionId,
        request.body.segments,
      );
      return reply.code(202).send({ session_id: sessionId, conversation_id: conversationId, dispatched });
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
      const { conversationId, finishedAt } = await sessions.finish(callerId(request), sessionId);
      return { session_id: sessionId, conversation_id: conversationId, finished_at: finishedAt };
    },
  );
};

export default transcripts;
