import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createAppBody,
  createdApp,
  createInstallBody,
  createKeyBody,
  createUserBody,
  install,
  rotatedApp,
  user,
} from '../contract/admin';
import { errors, idParam } from '../contract/common';
import { apiKey, createdApiKey, keyIdParams } from '../contract/keys';
import { app as appSchema } from '../contract/notifications';
import { assertRegistrable } from '../outbound/registration';
import { UnprocessableError } from '../http/http-errors';
import type { ProactiveScope } from '../contract/scopes';

const tags = ['Administration'];
// Record IDs in the path are checked as the developer API checks them: none is longer than 100 characters, so a
// longer one is a 422 naming it rather than a 404 that reads as a record gone.
const userParams = idParam('user_id');
const appParams = idParam('app_id');
const installParams = appParams.extend(userParams.shape);

const admin: FastifyPluginAsyncZod = async (app) => {
  const { users, apps } = app.repositories;

  app.post(
    '/users',
    {
      schema: {
        tags,
        summary: 'Create a user',
        body: createUserBody,
        response: { 201: user, ...errors(401, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await users.createUser(request.body.name)),
  );

  app.get(
    '/users',
    { schema: { tags, summary: 'List users', response: { 200: user.array(), ...errors(401) } } },
    async () => users.listUsers(),
  );

  app.post(
    '/users/:user_id/keys',
    {
      schema: {
        tags,
        summary: 'Create a developer key for a user; the key is shown only in this response',
        params: userParams,
        body: createKeyBody,
        response: { 201: createdApiKey, ...errors(401, 404, 422) },
      },
    },
    async (request, reply) => {
      const { name, scopes } = request.body;
      // null is no scopes given, as POST /v1/dev/keys takes it.
      const { key, secret } = await users.createKey(request.params.user_id, name, scopes ?? undefined);
      return reply.code(201).send({ ...key, key: secret });
    },
  );

  app.get(
    '/users/:user_id/keys',
    {
      schema: {
        tags,
        summary: "List a user's active developer keys",
        params: userParams,
        response: { 200: apiKey.array(), ...errors(401, 404) },
      },
    },
    async (request) => users.listKeys(request.params.user_id),
  );

  app.delete(
    '/keys/:key_id',
    {
      schema: {
        tags,
        summary: 'Revoke a developer key; it is refused from then on',
        params: keyIdParams,
        response: { 204: z.null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      await users.revokeKey(request.params.key_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/apps',
    {
      schema: {
        tags,
        summary: 'Create an app; its secret and webhook signing secret are shown only in this response',
        body: createAppBody,
        response: { 201: createdApp, ...errors(401, 422) },
      },
    },
    async (request, reply) => {
      // Declared scopes are read only for an app with the capability, and no route adds it later: without it,
      // every notification of the app would be dropped (capability_missing) after its webhook was called.
      const { capabilities, proactive_notification: declared } = request.body;
      if (declared && !capabilities.includes('proactive_notification')) {
        throw UnprocessableError.at(
          ['body', 'proactive_notification'],
          "Declares proactive scopes, but capabilities lacks 'proactive_notification', without which the app " +
            "can push no proactive notification: add 'proactive_notification' to capabilities, or leave " +
            'proactive_notification out',
        );
      }
      const webhookUrl = request.body.external_integration?.webhook_url;
      if (webhookUrl) {
        await assertRegistrable(app.outbound, webhookUrl, ['body', 'external_integration', 'webhook_url']);
      }
      const { app: created, appSecret, webhookSecret } = await apps.createApp(request.body);
      return reply.code(201).send({ ...created, app_secret: appSecret, webhook_secret: webhookSecret });
    },
  );

  app.get(
    '/apps',
    {
      schema: { tags, summary: 'List apps', response: { 200: appSchema.array(), ...errors(401) } },
    },
    async () => apps.listApps(),
  );

  app.post(
    '/apps/:app_id/rotate-secret',
    {
      schema: {
        tags,
        summary: "Replace an app's secret; the old one is refused at once and the new one shown only here",
        description:
          'For a secret that leaked: requests with the old secret answer 401 from the next one on, on every ' +
          'instance. The webhook signing secret stays as it is. 409 for the server’s own notifying app, ' +
          'which has no secret.',
        params: appParams,
        response: { 200: rotatedApp, ...errors(401, 404, 409) },
      },
    },
    async (request) => {
      const { app: rotated, appSecret } = await apps.rotateSecret(request.params.app_id);
      return { ...rotated, app_secret: appSecret };
    },
  );

  app.post(
    '/apps/:app_id/installs',
    {
      schema: {
        tags,
        summary: 'Install an app for a user, granting proactive scopes',
        description:
          'Installing an app the user already has replaces the scopes granted before with these (200, the ' +
          'install keeping its created_at); a new install answers 201.',
        params: appParams,
        body: createInstallBody,
        response: { 200: install, 201: install, ...errors(401, 404, 422) },
      },
    },
    async (request, reply) => {
      const { user_id, granted_scopes } = request.body;
      // A grant of a scope the app never declared would be one its webhook replies can never use.
      const checkScopes = (declared: ProactiveScope[]) => {
        const undeclared = granted_scopes.filter((scope) => !declared.includes(scope));
        if (undeclared.length > 0)
          throw UnprocessableError.at(
            ['body', 'granted_scopes'],
            `The app does not declare ${undeclared.join(', ')}; it declares ${declared.length ? declared.join(', ') : 'no proactive scopes'}: grant only those`,
          );
      };
      const { install: stored, replaced } = await apps.install(
        request.params.app_id,
        user_id,
        granted_scopes,
        checkScopes,
      );
      return reply.code(replaced ? 200 : 201).send(stored);
    },
  );

  app.get(
    '/apps/:app_id/installs',
    {
      schema: {
        tags,
        summary: "List an app's installs: who installed it and the scopes each granted",
        description:
          'Oldest first. What to read before installing the app again for a user, as that replaces the scopes ' +
          'granted before.',
        params: appParams,
        response: { 200: install.array(), ...errors(401, 404) },
      },
    },
    async (request) => apps.listInstalls(request.params.app_id),
  );

  app.delete(
    '/apps/:app_id/installs/:user_id',
    {
      schema: {
        tags,
        summary: 'Uninstall an app for a user',
        params: installParams,
        response: { 204: z.null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      await apps.uninstall(request.params.app_id, request.params.user_id);
      return reply.code(204).send(null);
    },
  );
};

export default admin;
