import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createAppBody,
  createdApp,
  createInstallBody,
  createKeyBody,
  createUserBody,
  install,
  user,
} from '../contract/admin';
import { errors, iso } from '../contract/common';
import { apiKey, createdApiKey } from '../contract/keys';
import { app as appSchema } from '../contract/notifications';
import { notFound } from '../errors';
import { createApiKey, createApp, createUser, installApp, toApiKey, toApp } from '../store/accounts';

const tags = ['Administration'];
const security = [{ adminToken: [] }];

const admin: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.store;

  async function requireUser(userId: string) {
    const row = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    if (!row) throw notFound('User');
  }

  async function requireApp(appId: string) {
    const row = await db.selectFrom('apps').select('id').where('id', '=', appId).executeTakeFirst();
    if (!row) throw notFound('App');
  }

  app.post(
    '/users',
    {
      schema: {
        tags,
        security,
        summary: 'Create a user',
        body: createUserBody,
        response: { 201: user, ...errors(401, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await createUser(db, request.body.name)),
  );

  app.get(
    '/users',
    { schema: { tags, security, summary: 'List users', response: { 200: user.array(), ...errors(401) } } },
    async () => {
      const rows = await db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map((row) => ({ ...row, created_at: iso(row.created_at) }));
    },
  );

  app.post(
    '/users/:user_id/keys',
    {
      schema: {
        tags,
        security,
        summary: 'Create a developer key for a user; the key is shown only in this response',
        params: z.object({ user_id: z.string() }),
        body: createKeyBody,
        response: { 201: createdApiKey, ...errors(401, 404, 422) },
      },
    },
    async (request, reply) => {
      await requireUser(request.params.user_id);
      const created = await createApiKey(db, request.params.user_id, request.body.name, request.body.scopes);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/users/:user_id/keys',
    {
      schema: {
        tags,
        security,
        summary: "List a user's active developer keys",
        params: z.object({ user_id: z.string() }),
        response: { 200: apiKey.array(), ...errors(401, 404) },
      },
    },
    async (request) => {
      await requireUser(request.params.user_id);
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('user_id', '=', request.params.user_id)
        .where('revoked_at', 'is', null)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toApiKey);
    },
  );

  app.delete(
    '/keys/:key_id',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke a developer key; it is refused from then on',
        params: z.object({ key_id: z.string() }),
        response: { 204: z.null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      const result = await db
        .updateTable('api_keys')
        .set({ revoked_at: Date.now() })
        .where('id', '=', request.params.key_id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw notFound('Key');
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/apps',
    {
      schema: {
        tags,
        security,
        summary: 'Create an app; its secret and webhook signing secret are shown only in this response',
        body: createAppBody,
        response: { 201: createdApp, ...errors(401, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await createApp(db, request.body)),
  );

  app.get(
    '/apps',
    {
      schema: { tags, security, summary: 'List apps', response: { 200: appSchema.array(), ...errors(401) } },
    },
    async () =>
      (await db.selectFrom('apps').selectAll().orderBy('created_at').orderBy('id').execute()).map(toApp),
  );

  app.post(
    '/apps/:app_id/installs',
    {
      schema: {
        tags,
        security,
        summary: 'Install an app for a user, granting proactive scopes',
        params: z.object({ app_id: z.string() }),
        body: createInstallBody,
        response: { 201: install, ...errors(401, 404, 422) },
      },
    },
    async (request, reply) => {
      await requireApp(request.params.app_id);
      await requireUser(request.body.user_id);
      const created = await installApp(
        db,
        request.params.app_id,
        request.body.user_id,
        request.body.granted_scopes,
      );
      return reply.code(201).send(created);
    },
  );

  app.delete(
    '/apps/:app_id/installs/:user_id',
    {
      schema: {
        tags,
        security,
        summary: 'Uninstall an app for a user',
        params: z.object({ app_id: z.string(), user_id: z.string() }),
        response: { 204: z.null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      const result = await db
        .deleteFrom('app_installs')
        .where('app_id', '=', request.params.app_id)
        .where('user_id', '=', request.params.user_id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) throw notFound('Install');
      return reply.code(204).send(null);
    },
  );
};

export default admin;
