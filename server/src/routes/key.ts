import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callerId, scoped } from '../auth/hooks';
import { errors } from '../contract/common';
import { apiKey, createdApiKey, createOwnKeyBody, keyIdParams } from '../contract/keys';
import { DEFAULT_SCOPES } from '../contract/scopes';
import { HttpError } from '../http/http-errors';

const TAGS = ['API Keys'];
const reads = scoped('keys:read', TAGS);
const writes = scoped('keys:write', TAGS);

const key: FastifyPluginAsyncZod = async (app) => {
  const { users } = app.repositories;

  app.get(
    '/key',
    {
      schema: {
        tags: TAGS,
        summary: 'The developer key making this request',
        response: { 200: apiKey, ...errors(401, 429) },
      },
    },
    async (request) => users.findKey(request.developerKey!.id),
  );

  app.get(
    '/keys',
    reads({
      summary: "The user's active developer keys, newest first",
      response: { 200: apiKey.array(), ...errors(401, 403, 429) },
    }),
    async (request) => users.listKeys(callerId(request), 'newest first'),
  );

  app.post(
    '/keys',
    writes({
      summary: 'Create a developer key for the same user; the key is shown only in this response',
      description:
        'A key can only pass on scopes it holds: asking for another one is a 403 naming it. Without scopes the ' +
        'new key gets the :read scopes of the key making the request, keys:read excepted.',
      body: createOwnKeyBody,
      response: { 200: createdApiKey, ...errors(401, 403, 422, 429) },
    }),
    async (request) => {
      const held = request.developerKey!.scopes;
      const { name, scopes } = request.body;
      const missing = scopes?.find((wanted) => !held.includes(wanted));
      if (missing) throw new HttpError(403, `Insufficient permissions. Required scope: ${missing}`);
      const granted = scopes ?? DEFAULT_SCOPES.filter((s) => held.includes(s));
      const made = await users.createKeyAs(request.developerKey!.id, callerId(request), name, granted);
      // Revoked since the key cache let this request in (on another instance, say): it passes on nothing.
      if (!made) throw new HttpError(401, 'Invalid API Key', { 'www-authenticate': 'Bearer' });
      return { ...made.key, key: made.secret };
    },
  );

  app.delete(
    '/keys/:key_id',
    writes({
      summary: 'Revoke a developer key of the same user (this one too); it is refused from then on',
      description:
        'A key revokes only keys whose scopes it holds too: revoking one with another scope is a 403 naming it.',
      params: keyIdParams,
      response: { 204: z.null().meta({ description: 'Revoked' }), ...errors(401, 403, 404, 429) },
    }),
    async (request, reply) => {
      const userId = callerId(request);
      const { key_id: keyId } = request.params;
      // As a key passes on no scope it lacks, it revokes no key stronger than itself: a narrow key (an agent's)
      // must not lock its user out of a broader one.
      const target = (await users.listKeys(userId, 'newest first')).find((listed) => listed.id === keyId);
      const beyond = target?.scopes.find((scope) => !request.developerKey!.scopes.includes(scope));
      if (beyond)
        throw new HttpError(
          403,
          `Insufficient permissions. Required scope: ${beyond} (the key to revoke holds it)`,
        );
      await users.revokeKey(keyId, { userId, thing: 'API key' });
      return reply.code(204).send(null);
    },
  );
};

export default key;
