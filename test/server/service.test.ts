import { devClient } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

describe.each(DIALECTS)('the service surface on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));

  it('answers /healthz, /openapi.json and /docs', async () => {
    const health = await fetch(`${server.baseUrl}/healthz`);
    // On PostgreSQL the instances tell each other over LISTEN/NOTIFY (no Redis here): its connection is reported.
    expect(await health.json()).toEqual(
      server.dialect === 'postgres' ? { status: 'ok', listen: 'ok' } : { status: 'ok' },
    );
    const doc = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as any;
    expect(doc.openapi).toMatch(/^3\./);
    for (const path of [
      '/v1/dev/key',
      '/v1/dev/user/screen-activity',
      '/v1/dev/user/action-items/batch',
      '/v1/dev/user/action-items/{action_item_id}',
      '/v1/dev/user/conversations/{conversation_id}',
      '/v1/dev/user/goals',
      '/v1/dev/user/goals/{goal_id}',
      '/v1/dev/user/people',
      '/v2/integrations/{app_id}/notification',
      '/v1/admin/users',
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    expect(doc.components.schemas.ValidationError).toBeDefined();
    const docs = await fetch(`${server.baseUrl}/docs/`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('answers unknown routes, malformed JSON and wrong content with 4xx bodies', async () => {
    const api = devClient(server);
    const unknown = await api.get('/v1/dev/user/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Not Found' });

    const malformed = await api.raw('POST', '/v1/dev/user/action-items', {
      headers: { authorization: `Bearer ${server.init.developer_key}`, 'content-type': 'application/json' },
      body: '{"description": ',
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });

    const empty = await api.raw('POST', '/v1/dev/user/action-items', {
      headers: { authorization: `Bearer ${server.init.developer_key}`, 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });

    const text = await api.raw('POST', '/v1/dev/user/action-items', {
      headers: { authorization: `Bearer ${server.init.developer_key}`, 'content-type': 'application/xml' },
      body: '<description>hello</description>',
    });
    expect(text.status).toBe(415);
    expect(typeof text.body.detail).toBe('string');

    const wrongTypes = await api.post('/v1/dev/user/action-items', { description: 42, completed: 'yes' });
    expect(wrongTypes.status).toBe(422);
    expect(wrongTypes.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'description'],
      ['body', 'completed'],
    ]);
    const stored = await server.store.db.selectFrom('action_items').select('id').execute();
    expect(stored).toHaveLength(0);
  });
});
