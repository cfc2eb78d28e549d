import { createdApp, install, rotatedApp, user } from '../../server/src/contract/admin';
import { validationErrorBody } from '../../server/src/contract/common';
import { apiKey } from '../../server/src/contract/keys';
import { app as appSchema } from '../../server/src/contract/notifications';
import { adminClient, client, devClient, expectShape, ok } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

describe.each(DIALECTS)('administration on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));

  it('needs the admin token', async () => {
    expect((await client(server.baseUrl).get('/v1/admin/users')).status).toBe(401);
    const withDevKey = await devClient(server).get('/v1/admin/users');
    expect(withDevKey.status).toBe(401);
    expect(withDevKey.body).toEqual({ detail: 'Invalid admin token' });
  });

  it('creates and lists users and their keys', async () => {
    const admin = adminClient(server);
    const created = await admin.post('/v1/admin/users', { name: 'Ada' });
    expect(created.status).toBe(201);
    const ada = expectShape(user, created.body);
    const users = expectShape(user.array(), (await admin.get('/v1/admin/users')).body);
    expect(users.map((u) => u.id)).toEqual([server.init.user_id, ada.id]);

    const key = await admin.post(`/v1/admin/users/${ada.id}/keys`, {
      name: 'ci',
      scopes: ['memories:write'],
    });
    expect(key.status).toBe(201);
    const keys = expectShape(apiKey.array(), (await admin.get(`/v1/admin/users/${ada.id}/keys`)).body);
    expect(keys).toEqual([expect.objectContaining({ id: key.body.id, scopes: ['memories:write'] })]);
    expect(JSON.stringify(keys)).not.toContain(key.body.key);

    // null is no scopes given, as the developer API's POST /v1/dev/keys takes it: the default :read scopes.
    const defaults = await admin.post(`/v1/admin/users/${ada.id}/keys`, { name: 'reader', scopes: null });
    expect(defaults.status).toBe(201);
    expect(defaults.body.scopes).toContain('memories:read');
    expect(defaults.body.scopes).not.toContain('keys:read');
    expect(defaults.body.scopes.every((s: string) => s.endsWith(':read'))).toBe(true);

    expect((await admin.post('/v1/admin/users/nobody/keys', { name: 'x' })).status).toBe(404);
    const badScope = await admin.post(`/v1/admin/users/${ada.id}/keys`, {
      name: 'x',
      scopes: ['everything'],
    });
    expect(badScope.status).toBe(422);
    expect(expectShape(validationErrorBody, badScope.body).detail[0].loc).toEqual(['body', 'scopes', 0]);
  });

  it('refuses an unknown body field with 422 naming it and the field probably meant, storing nothing', async () => {
    const admin = adminClient(server);
    const unknown = async (path: string, body: unknown) => {
      const reply = await admin.post(path, body);
      expect(reply.status).toBe(422);
      return expectShape(validationErrorBody, reply.body).detail.map(({ loc, msg, type }) => ({
        loc,
        msg,
        type,
      }));
    };
    const users = await server.count('users');
    expect(await unknown('/v1/admin/users', { name: 'Ada', nmae: 'Ada' })).toEqual([
      { loc: ['body', 'nmae'], msg: "Unknown field 'nmae'; did you mean 'name'?", type: 'extra_forbidden' },
    ]);
    expect(await server.count('users')).toBe(users);

    const keys = await server.count('api_keys');
    expect(
      await unknown(`/v1/admin/users/${server.init.user_id}/keys`, { name: 'ci', scope: ['memories:read'] }),
    ).toEqual([
      {
        loc: ['body', 'scope'],
        msg: "Unknown field 'scope'; did you mean 'scopes'?",
        type: 'extra_forbidden',
      },
    ]);
    expect(await server.count('api_keys')).toBe(keys);

    const apps = await server.count('apps');
    const nested = await unknown('/v1/admin/apps', {
      name: 'Hook',
      capabilities: ['external_integration'],
      external_integration: { triggers_on: 'transcript_processed', webhook: 'http://127.0.0.1:9/hook' },
    });
    expect(nested).toEqual([
      expect.objectContaining({ loc: ['body', 'external_integration', 'webhook'], type: 'extra_forbidden' }),
    ]);
    expect(await server.count('apps')).toBe(apps);
  });

  it("refuses an app's webhook URL over 2,000 characters, as setting the webhook later does, storing nothing", async () => {
    const admin = adminClient(server);
    const webhook = (length: number) =>
      `http://127.0.0.1:9/${'x'.repeat(length - 'http://127.0.0.1:9/'.length)}`;
    const create = (webhookUrl: string) =>
      admin.post('/v1/admin/apps', {
        name: 'Hook',
        capabilities: ['external_integration'],
        external_integration: { triggers_on: 'transcript_processed', webhook_url: webhookUrl },
      });
    const apps = await server.count('apps');
    const tooLong = await create(webhook(2001));
    expect(tooLong.status).toBe(422);
    expect(expectShape(validationErrorBody, tooLong.body).detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'external_integration', 'webhook_url'],
        msg: 'URL too long: at most 2000 characters, got 2001',
      }),
    ]);
    expect(await server.count('apps')).toBe(apps);

    const longest = expectShape(createdApp, (await ok(create(webhook(2000)), 201)) as unknown);
    const put = await client(server.baseUrl, longest.app_secret).put(
      `/v2/integrations/${longest.id}/webhook`,
      {
        webhook_url: webhook(2001),
      },
    );
    expect(expectShape(validationErrorBody, put.body).detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'webhook_url'],
        msg: 'URL too long: at most 2000 characters, got 2001',
      }),
    ]);
  });

  it('gives an app created with a webhook URL the external_integration capability, as registering one does', async () => {
    // Without it the app's webhook is never called, and no delivery says why.
    const created = await adminClient(server).post('/v1/admin/apps', {
      name: 'Listener',
      capabilities: ['proactive_notification'],
      external_integration: { triggers_on: 'transcript_processed', webhook_url: 'http://127.0.0.1:9/hook' },
    });
    expect(created.status).toBe(201);
    expect(created.body.capabilities).toEqual(['proactive_notification', 'external_integration']);
  });

  it('refuses proactive scopes for an app without the proactive_notification capability, storing nothing', async () => {
    // Such an app's notifications would all be dropped as capability_missing, and no route adds the capability.
    const admin = adminClient(server);
    const apps = await server.count('apps');
    for (const capabilities of [['external_integration'], []]) {
      for (const scopes of [['user_name'], []]) {
        const reply = await admin.post('/v1/admin/apps', {
          name: 'Coach',
          capabilities,
          proactive_notification: { scopes },
        });
        expect(reply.status).toBe(422);
        expect(expectShape(validationErrorBody, reply.body).detail).toEqual([
          {
            loc: ['body', 'proactive_notification'],
            msg:
              "Declares proactive scopes, but capabilities lacks 'proactive_notification', without which the app " +
              "can push no proactive notification: add 'proactive_notification' to capabilities, or leave " +
              'proactive_notification out',
            type: 'value_error',
          },
        ]);
      }
    }
    expect(await server.count('apps')).toBe(apps);
    const coach = await admin.post('/v1/admin/apps', {
      name: 'Coach',
      capabilities: ['proactive_notification'],
      proactive_notification: { scopes: ['user_name'] },
    });
    expect(coach.status).toBe(201);
    expect(expectShape(createdApp, coach.body).proactive_notification).toEqual({ scopes: ['user_name'] });
  });

  it('creates apps, installs and uninstalls them', async () => {
    const admin = adminClient(server);
    const created = await admin.post('/v1/admin/apps', {
      name: 'Coach',
      capabilities: ['external_integration', 'proactive_notification'],
      external_integration: {
        triggers_on: 'transcript_processed',
        webhook_url: 'http://127.0.0.1:9/hook',
      },
      proactive_notification: { scopes: ['user_name', 'user_facts'] },
    });
    expect(created.status).toBe(201);
    const coach = expectShape(createdApp, created.body);
    expect(coach.app_secret).toMatch(/^sk_[0-9a-f]{32}$/);
    expect(coach.webhook_secret).toMatch(/^whsec_[0-9a-f]{32}$/);
    const apps = expectShape(appSchema.array(), (await admin.get('/v1/admin/apps')).body);
    expect(apps.map((a) => a.id)).toContain(coach.id);
    expect(JSON.stringify(apps)).not.toContain(coach.app_secret);

    const installed = await admin.post(`/v1/admin/apps/${coach.id}/installs`, {
      user_id: server.init.user_id,
      granted_scopes: ['user_name'],
    });
    expect(installed.status).toBe(201);
    expect(expectShape(install, installed.body).granted_scopes).toEqual(['user_name']);
    expect((await admin.post(`/v1/admin/apps/nope/installs`, { user_id: server.init.user_id })).status).toBe(
      404,
    );
    expect((await admin.post(`/v1/admin/apps/${coach.id}/installs`, { user_id: 'nobody' })).status).toBe(404);
    // A scope the app never declared is refused, and the earlier grant stays.
    const undeclared = await admin.post(`/v1/admin/apps/${coach.id}/installs`, {
      user_id: server.init.user_id,
      granted_scopes: ['user_name', 'user_chat', 'user_context'],
    });
    expect(undeclared.status).toBe(422);
    expect(undeclared.body.detail).toEqual([
      {
        loc: ['body', 'granted_scopes'],
        msg: 'The app does not declare user_chat, user_context; it declares user_name, user_facts: grant only those',
        type: 'value_error',
      },
    ]);
    const kept = await server.store.db
      .selectFrom('app_installs')
      .select('granted_scopes')
      .where('app_id', '=', coach.id)
      .executeTakeFirst();
    expect(JSON.parse(kept!.granted_scopes)).toEqual(['user_name']);

    expect((await admin.delete(`/v1/admin/apps/${coach.id}/installs/${server.init.user_id}`)).status).toBe(
      204,
    );
    expect((await admin.delete(`/v1/admin/apps/${coach.id}/installs/${server.init.user_id}`)).status).toBe(
      404,
    );
    const rows = await server.store.db
      .selectFrom('app_installs')
      .select('user_id')
      .where('app_id', '=', coach.id)
      .execute();
    expect(rows).toHaveLength(0);
  });

  it("rotates an app's secret: the old one refused at once, the new one works, the webhook secret kept", async () => {
    const admin = adminClient(server);
    const coach = expectShape(
      createdApp,
      (
        await admin.post('/v1/admin/apps', {
          name: 'Coach',
          capabilities: ['proactive_notification'],
          proactive_notification: { scopes: [] },
        })
      ).body,
    );
    await ok(admin.post(`/v1/admin/apps/${coach.id}/installs`, { user_id: server.init.user_id }), 201);
    const push = (secret: string) =>
      client(server.baseUrl, secret).post(
        `/v2/integrations/${coach.id}/notification?uid=${server.init.user_id}&message=${encodeURIComponent(secret)}`,
        undefined,
      );
    expect((await push(coach.app_secret)).status).toBe(200);

    const rotated = await admin.post(`/v1/admin/apps/${coach.id}/rotate-secret`, undefined);
    expect(rotated.status).toBe(200);
    const { app_secret: newSecret, ...rotatedRecord } = expectShape(rotatedApp, rotated.body);
    expect(newSecret).toMatch(/^sk_[0-9a-f]{32}$/);
    expect(newSecret).not.toBe(coach.app_secret);
    expect(rotatedRecord).toEqual(
      expectShape(
        appSchema,
        (await client(server.baseUrl, newSecret).get(`/v2/integrations/${coach.id}/app`)).body,
      ),
    );
    expect(rotatedRecord).toMatchObject({ id: coach.id, name: coach.name, created_at: coach.created_at });

    const refused = await push(coach.app_secret);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: 'Invalid app ID or secret' });
    expect((await push(newSecret)).status).toBe(200);
    const pushed = await server.store.db
      .selectFrom('notifications')
      .select('text')
      .where('app_id', '=', coach.id)
      .orderBy('created_at')
      .execute();
    expect(pushed.map((row) => row.text)).toEqual([coach.app_secret, newSecret]);
    const stored = await server.store.db
      .selectFrom('apps')
      .select(['secret_hash', 'webhook_secret'])
      .where('id', '=', coach.id)
      .executeTakeFirstOrThrow();
    expect(stored.webhook_secret).toBe(coach.webhook_secret);
    expect(stored.secret_hash).not.toContain(newSecret);

    expect((await admin.post('/v1/admin/apps/nope/rotate-secret', undefined)).status).toBe(404);
    expect((await devClient(server).post(`/v1/admin/apps/${coach.id}/rotate-secret`, undefined)).status).toBe(
      401,
    );
  });

  it("refuses to give the server's own notifying app a secret: nothing authenticates as it", async () => {
    const appId = await server.app.repositories.webhooks.ensureNotifyingApp();
    const rotated = await adminClient(server).post(`/v1/admin/apps/${appId}/rotate-secret`, undefined);
    expect(rotated.status).toBe(409);
    expect(rotated.body.app_secret).toBeUndefined();
    const secret = (rotated.body.app_secret as string | undefined) ?? 'none';
    expect((await client(server.baseUrl, secret).get(`/v2/integrations/${appId}/app`)).status).toBe(401);
    const stored = await server.store.db
      .selectFrom('apps')
      .select('secret_hash')
      .where('id', '=', appId)
      .executeTakeFirstOrThrow();
    expect(stored.secret_hash).toMatch(/^unusable:/);
  });

  it("lists an app's installs with the scopes each user granted, oldest first, without changing them", async () => {
    // Installing again replaces the grant: what a user granted is read here, not by installing to find out.
    const admin = adminClient(server);
    const app = expectShape(
      createdApp,
      await ok(
        admin.post('/v1/admin/apps', {
          name: 'Coach',
          capabilities: ['proactive_notification'],
          proactive_notification: { scopes: ['user_name', 'user_facts'] },
        }),
        201,
      ),
    );
    const path = `/v1/admin/apps/${app.id}/installs`;
    expect(await ok(admin.get(path))).toEqual([]);
    const ada = expectShape(user, await ok(admin.post('/v1/admin/users', { name: 'Ada' }), 201));
    const first = expectShape(
      install,
      await ok(admin.post(path, { user_id: server.init.user_id, granted_scopes: ['user_facts'] }), 201),
    );
    const second = expectShape(
      install,
      await ok(admin.post(path, { user_id: ada.id, granted_scopes: ['user_name', 'user_facts'] }), 201),
    );
    const listed = expectShape(install.array(), await ok(admin.get(path)));
    const byUser = new Map(listed.map((row) => [row.user_id, row]));
    expect(byUser).toEqual(
      new Map([
        [first.user_id, first],
        [second.user_id, second],
      ]),
    );
    const sorted = [...listed].sort(
      (a, b) => a.created_at.localeCompare(b.created_at) || a.user_id.localeCompare(b.user_id),
    );
    expect(listed).toEqual(sorted);
    expect(await ok(admin.get(path))).toEqual(listed);

    // Another app's installs are not listed; an unknown app is a 404, as installing on it is.
    const others = expectShape(
      install.array(),
      await ok(admin.get(`/v1/admin/apps/${server.init.app_id}/installs`)),
    );
    expect(others.every((row) => row.app_id === server.init.app_id)).toBe(true);
    expect(others.map((row) => row.user_id)).not.toContain(ada.id);
    const unknown = await admin.get('/v1/admin/apps/nope/installs');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'App not found' });
    expect((await client(server.baseUrl).get(path)).status).toBe(401);
  });

  it('refuses a path ID over 100 characters with 422 naming it, as the developer API does, writing nothing', async () => {
    // No ID is that long: a 404 would read as a record gone, where the URL is what is wrong.
    const admin = adminClient(server);
    const long = 'x'.repeat(101);
    const { user_id: userId, app_id: appId } = server.init;
    const cases: [Promise<{ status: number; body: unknown }>, string][] = [
      [admin.post(`/v1/admin/users/${long}/keys`, { name: 'ci' }), 'user_id'],
      [admin.get(`/v1/admin/users/${long}/keys`), 'user_id'],
      [admin.delete(`/v1/admin/keys/${long}`), 'key_id'],
      [admin.post(`/v1/admin/apps/${long}/rotate-secret`), 'app_id'],
      [admin.post(`/v1/admin/apps/${long}/installs`, { user_id: userId }), 'app_id'],
      [admin.get(`/v1/admin/apps/${long}/installs`), 'app_id'],
      [admin.delete(`/v1/admin/apps/${long}/installs/${userId}`), 'app_id'],
      [admin.delete(`/v1/admin/apps/${appId}/installs/${long}`), 'user_id'],
    ];
    const keys = await server.count('api_keys');
    for (const [sent, name] of cases) {
      const reply = await sent;
      expect(reply.status).toBe(422);
      expect(expectShape(validationErrorBody, reply.body).detail).toEqual([
        expect.objectContaining({ loc: ['path', name], type: 'too_big' }),
      ]);
    }
    expect(await server.count('api_keys')).toBe(keys);
    // 100 characters is still an ID, one that does not exist.
    expect((await admin.get(`/v1/admin/users/${'x'.repeat(100)}/keys`)).status).toBe(404);
    expect((await admin.delete(`/v1/admin/apps/${appId}/installs/${'x'.repeat(100)}`)).status).toBe(404);
  });

  it('installs an app again by replacing the granted scopes: 200 with the install as stored, created_at kept', async () => {
    const admin = adminClient(server);
    const ada = (await admin.post('/v1/admin/users', { name: 'Ada' })).body as { id: string };
    const path = `/v1/admin/apps/${server.init.app_id}/installs`;
    const first = await admin.post(path, { user_id: ada.id, granted_scopes: ['user_name', 'user_facts'] });
    expect(first.status).toBe(201);
    const installed = expectShape(install, first.body);
    await new Promise((resolve) => setTimeout(resolve, 5));

    const again = await admin.post(path, { user_id: ada.id, granted_scopes: ['user_chat'] });
    expect(again.status).toBe(200);
    expect(expectShape(install, again.body)).toEqual({ ...installed, granted_scopes: ['user_chat'] });
    const stored = await server.store.db
      .selectFrom('app_installs')
      .select(['granted_scopes', 'created_at'])
      .where('app_id', '=', server.init.app_id)
      .where('user_id', '=', ada.id)
      .execute();
    expect(stored.map((row) => [row.granted_scopes, new Date(Number(row.created_at)).toISOString()])).toEqual(
      [['["user_chat"]', installed.created_at]],
    );
  });
});
