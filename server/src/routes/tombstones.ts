import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerId } from '../auth/hooks';
import {
  listDeletedQuery,
  tombstone,
  TOMBSTONE_READ_SCOPE,
  TOMBSTONE_TYPES,
  type TombstoneType,
} from '../contract/change-feed';
import { errors } from '../contract/common';
import type { Scope } from '../contract/scopes';
import { HttpError } from '../http/http-errors';

const tags = ['Change Feed'];

const isTombstoneType = (value: unknown): value is TombstoneType =>
  (TOMBSTONE_TYPES as readonly unknown[]).includes(value);

/** The types whose records (and so whose tombstones) a key holding `scopes` may read. */
const readableTypes = (scopes: Scope[]) =>
  TOMBSTONE_TYPES.filter((t) => scopes.includes(TOMBSTONE_READ_SCOPE[t]));

const READ_SCOPES = [...new Set(Object.values(TOMBSTONE_READ_SCOPE))];

const tombstones: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.tombstones;

  app.get(
    '/deleted',
    {
      // The scope depends on `type`; checked as the request arrives, after authentication, like every other
      // route's scope: a missing scope is a 403 whatever the input.
      onRequest: async (request) => {
        const scopes = request.developerKey?.scopes ?? [];
        const type = (request.query as Record<string, unknown>).type;
        if (isTombstoneType(type)) {
          const required = TOMBSTONE_READ_SCOPE[type];
          if (!scopes.includes(required)) {
            throw new HttpError(403, `Insufficient permissions. Required scope: ${required}`);
          }
        } else if (readableTypes(scopes).length === 0) {
          throw new HttpError(
            403,
            `Insufficient permissions. Required scope: one of ${READ_SCOPES.join(', ')}`,
          );
        }
      },
      schema: {
        tags,
        summary: 'Records deleted after a point (tombstones), oldest deletion first',
        description:
          'Each deletion of an action item, conversation, memory, folder or person leaves a tombstone ' +
          '{type, id, deleted_at}, written in the same transaction as the delete. Tombstones are kept at least ' +
          '30 days (older ones are pruned when the user deletes something else), so a client that has not ' +
          'polled for longer should sync everything again. Goals are never removed (DELETE abandons them, an ' +
          'update seen in the goals list), so there are no goal tombstones. Ordered by deleted_at, then id; ' +
          'page with since = the last tombstone’s deleted_at and after_id = its id; a page shorter than limit ' +
          'means you are up to date. deleted_at comes from the same per-user write clock as updated_at, so ' +
          'deletions and changes can be merged in one order. Without type, the answer holds the types the key ' +
          'can read (the read scope of each type; folders: conversations:read); with type, that type’s read ' +
          'scope is required.',
        querystring: listDeletedQuery,
        response: { 200: tombstone.array(), ...errors(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const { since, type, after_id, limit } = request.query;
      const types = type ? [type] : readableTypes(request.developerKey?.scopes ?? []);
      return repository.list(callerId(request), { types, since, after_id, limit });
    },
  );
};

export default tombstones;
