import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerId } from '../auth/hooks';
import { errors, INSTANT_RANGE_MESSAGE, inInstantRange } from '../contract/common';
import {
  checkSegmentTimes,
  conversation,
  createConversationBody,
  createFromSegmentsBody,
  getConversationQuery,
  LIVE_TRANSCRIPT_SOURCE,
  listConversationsQuery,
  updateConversationBody,
} from '../contract/conversations';
import { HttpError, UnprocessableError } from '../http/http-errors';
import { recordRoutes, tombstoneNote } from '../http/record-routes';
import { isRetryOf, type NewConversation } from '../store/conversations';

/**
 * Refuses a conversation that would finish before it starts, or whose start or finish, as given or as derived
 * from the other and its segments' times, falls outside the instants the server keeps.
 */
function checkSpan(span: { started_at: number; finished_at: number }): void {
  for (const field of ['started_at', 'finished_at'] as const) {
    if (!inInstantRange(span[field])) throw UnprocessableError.at(['body', field], INSTANT_RANGE_MESSAGE);
  }
  if (span.finished_at < span.started_at) {
    throw UnprocessableError.at(['body', 'finished_at'], 'finished_at must not be before started_at');
  }
}

const conversations: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.conversations;
  const routes = recordRoutes(app, '/conversations/:conversation_id', {
    tags: ['Conversations'],
    scopes: 'conversations',
  });

  routes.list(
    {
      summary: 'List conversations, newest started first, or the changes since a point (order=updated_at)',
      description:
        'Lists completed conversations unless statuses asks for in_progress ones too (a live transcript ' +
        'session’s conversation until the session is finished). With updated_since or order=updated_at, ' +
        'include_discarded defaults to true, so a discard shows up as a change (discarded: true), and ' +
        'statuses to both, so a live session’s conversation shows up as it grows and again when it is ' +
        'finished. A conversation’s updated_at moves when the conversation itself changes (title, ' +
        'discarded, starred, folder, the folder’s name, transcript); changes to its action items ' +
        'show in the action items’ own updated_at. Deleting a conversation leaves a tombstone and unlinks ' +
        'its action items, which counts as a change of each of them.',
      querystring: listConversationsQuery,
      response: conversation.array(),
    },
    (userId, query) => repository.list(userId, query),
  );

  routes.get(
    { summary: 'Get one conversation', querystring: getConversationQuery, response: conversation },
    (userId, id, query) => repository.findOwned(userId, id, query.include_transcript),
  );

  routes.create(
    {
      summary: 'Create a conversation from text',
      body: createConversationBody,
      response: conversation,
      notFound: true,
    },
    async (userId, { text, ...rest }) => {
      const input: NewConversation = {
        ...rest,
        transcript_segments: [{ text, is_user: false, start: 0, end: 0 }],
      };
      checkSegmentTimes(input.transcript_segments, 'transcript_segments');
      return (await repository.create(userId, input, null, checkSpan)).conversation;
    },
  );

  app.post(
    '/conversations/from-segments',
    routes.write({
      summary: 'Create a conversation from transcript segments (idempotent by client_session_id)',
      description:
        'Answers 200 with the new conversation, or with the existing one when this client_session_id was used ' +
        'before with the same content; 409 when it was used for a different conversation.',
      body: createFromSegmentsBody,
      response: { 200: conversation, ...errors(401, 403, 404, 409, 422, 429) },
    }),
    async (request, reply) => {
      const userId = callerId(request);
      const { client_session_id: sessionId = null, ...input } = request.body;
      // A retry answers with the conversation its first request made; other content under its ID is refused.
      const existing = sessionId === null ? undefined : await repository.findBySession(userId, sessionId);
      const liveSession = () =>
        new HttpError(
          409,
          `client_session_id ${sessionId} is the ID of a live transcript session, not of a conversation created from segments: use another client_session_id`,
        );
      const otherConversation = () =>
        new HttpError(
          409,
          `client_session_id ${sessionId} was already used for a different conversation (other transcript_segments, language, source, geolocation, started_at or finished_at): send the same body to retry, or use another client_session_id`,
        );
      if (existing?.source === LIVE_TRANSCRIPT_SOURCE) throw liveSession();
      if (existing && !isRetryOf(existing, input)) throw otherConversation();
      if (existing) return reply.code(200).send(existing);
      checkSegmentTimes(input.transcript_segments, 'transcript_segments');
      const result = await repository.create(userId, input, sessionId, checkSpan);
      // A live session that took the ID meanwhile (the create lost the race to it) is refused the same way.
      if (!result.created && result.conversation.source === LIVE_TRANSCRIPT_SOURCE) throw liveSession();
      if (!result.created && !isRetryOf(result.conversation, input)) throw otherConversation();
      return reply.code(200).send(result.conversation);
    },
  );

  routes.update(
    {
      summary: 'Rename, discard, star or move a conversation (only the fields sent)',
      description:
        'Sets updated_at to the write time when a stored value changes (a discard too); a PATCH with an empty ' +
        'body or with the values the conversation already has changes nothing and keeps updated_at.',
      body: updateConversationBody,
      response: conversation,
    },
    (userId, id, body) => repository.update(userId, id, body),
  );

  routes.remove(
    {
      summary: 'Delete a conversation; its action items stay, linked to no conversation',
      description:
        tombstoneNote('conversation') +
        ' Unlinking the action items is a change of each of them (their updated_at moves).',
    },
    (userId, id) => repository.delete(userId, id),
  );
};

export default conversations;
