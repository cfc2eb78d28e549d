import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { callerId } from '../auth/hooks';
import { errors, iso } from '../contract/common';
import type { transcriptSegment } from '../contract/conversations';
import { appendSegmentsBody, segmentsAccepted, sessionFinished, sessionParams } from '../contract/proactive';
import { HttpError, notFound, UnprocessableError } from '../errors';
import { newId } from '../ids';
import { userWrite, writeStamp } from '../store/changes';
import { summarize, toSegment } from './conversations';

type Segment = z.infer<typeof transcriptSegment>;

const tags = ['Transcripts'];

/**
 * Live transcript sessions: segments arrive in batches while a conversation goes on. The session's
 * conversation is the user's conversation with `client_session_id` = the session id, created by the first
 * batch and flagged `live` until the session is finished. Each batch goes on to the apps' webhooks after
 * the request is answered.
 */
const transcripts: FastifyPluginAsyncZod = async (app) => {
  const { db, dialect } = app.store;

  app.post(
    '/transcripts/:session_id/segments',
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags,
        summary: "Append live transcript segments to a session; they are sent to the apps' webhooks",
        description:
          'Answers 202 at once; the webhook calls happen afterwards and are recorded as deliveries. ' +
          'A finished session refuses further segments with 409.',
        params: sessionParams,
        body: appendSegmentsBody,
        response: { 202: segmentsAccepted, ...errors(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const userId = callerId(request);
      const sessionId = request.params.session_id;
      const input = request.body.segments;
      input.forEach((segment, i) => {
        if (segment.end < segment.start) {
          throw UnprocessableError.at(['body', 'segments', i, 'end'], 'end must not be before start');
        }
      });
      const now = Date.now();
      const added = input.map((s) => toSegment(s, now));

      const conversationId = await db.transaction().execute(async (trx) => {
        // The write stamp first: it also serializes this user's appends (see store/changes.ts).
        const at = await writeStamp(trx, userId);
        const find = () =>
          trx
            .selectFrom('conversations')
            .select(['id', 'live', 'started_at', 'transcript_segments', 'structured'])
            .where('user_id', '=', userId)
            .where('client_session_id', '=', sessionId)
            .$if(dialect === 'postgres', (q) => q.forUpdate())
            .executeTakeFirst();
        let row = await find();
        if (!row) {
          const startedAt = now - Math.round(Math.min(...input.map((s) => s.start)) * 1000);
          await trx
            .insertInto('conversations')
            .values({
              id: newId(now),
              user_id: userId,
              client_session_id: sessionId,
              folder_id: null,
              language: 'en',
              source: 'live_transcript',
              structured: JSON.stringify(summarize('', undefined)),
              transcript_segments: '[]',
              geolocation: null,
              discarded: 0,
              live: 1,
              started_at: startedAt,
              finished_at: startedAt,
              created_at: at,
              updated_at: at,
            })
            .onConflict((oc) => oc.columns(['user_id', 'client_session_id']).doNothing())
            .execute();
          row = await find();
          if (!row) throw new Error('live session conversation vanished');
        }
        if (row.live !== 1) throw new HttpError(409, `Transcript session ${sessionId} is finished`);
        const segments = [...(JSON.parse(row.transcript_segments) as Segment[]), ...added];
        const text = segments.map((s) => s.text).join(' ');
        const durationMs = Math.round(Math.max(...segments.map((s) => s.end)) * 1000);
        await trx
          .updateTable('conversations')
          .set({
            transcript_segments: JSON.stringify(segments),
            structured: JSON.stringify(summarize(text, undefined)),
            finished_at: row.started_at + durationMs,
            updated_at: at,
          })
          .where('id', '=', row.id)
          .execute();
        return row.id;
      });

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
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags,
        summary: 'Finish a live transcript session; later segments for it are refused',
        description: 'Finishing an already finished session answers the same again.',
        params: sessionParams,
        response: { 200: sessionFinished, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      const sessionId = request.params.session_id;
      const row = await db
        .selectFrom('conversations')
        .select(['id', 'live', 'started_at', 'finished_at'])
        .where('user_id', '=', userId)
        .where('client_session_id', '=', sessionId)
        .executeTakeFirst();
      if (!row) throw notFound('Transcript session');
      let finishedAt = row.finished_at;
      if (row.live === 1) {
        finishedAt = await userWrite(db, userId, async (trx, at) => {
          const end = Math.max(at, row.finished_at);
          const finished = await trx
            .updateTable('conversations')
            .set({ live: 0, finished_at: end, updated_at: at })
            .where('id', '=', row.id)
            .where('live', '=', 1)
            .executeTakeFirst();
          if (Number(finished.numUpdatedRows) > 0) return end;
          // Finished meanwhile by another request: answer with its finish time.
          const again = await trx
            .selectFrom('conversations')
            .select('finished_at')
            .where('id', '=', row.id)
            .executeTakeFirst();
          return again?.finished_at ?? row.finished_at;
        });
      }
      return { session_id: sessionId, conversation_id: row.id, finished_at: iso(finishedAt) };
    },
  );
};

export default transcripts;
