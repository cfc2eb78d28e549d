// The quick paths of the input checks (server/src/contract/common.ts) must decide as the full checks would, or
// the server would take input its contract refuses. A quick check lets a request part skip zod: it must pass a
// value only when zod would accept it and give it back unchanged. The text check answers a flat object of clean
// strings without walking it: it must find every issue the walk finds.
import fc from 'fast-check';
import { idParam, quickCheck, textIssue } from '../../server/src/contract/common';
import { devClient } from '../helpers/http';
import { forSuite, startServer } from '../helpers/server';

const NAME = 'goal_id';

describe('the quick check of a record id in the path', () => {
  const schema = idParam(NAME);
  const quick = quickCheck(schema)!;

  const text = fc.oneof(
    fc.string({ maxLength: 120 }),
    fc.string({ unit: 'binary', maxLength: 120 }),
    fc.constantFrom('', 'x'.repeat(99), 'x'.repeat(100), 'x'.repeat(101), '😀'.repeat(50), '😀'.repeat(51)),
  );
  const anything = fc.oneof(text, fc.integer(), fc.constant(null), fc.constant(undefined), fc.array(text));
  const params = fc.oneof(
    fc.record({ [NAME]: text }),
    fc.record({ [NAME]: anything }),
    fc.dictionary(fc.constantFrom(NAME, 'app_id', 'other'), anything),
    anything,
  );

  it('passes only what zod accepts unchanged', () => {
    fc.assert(
      fc.property(params, (value) => {
        const parsed = schema.safeParse(value);
        const unchanged = parsed.success && JSON.stringify(parsed.data) === JSON.stringify(value);
        if (quick(value)) expect(unchanged).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('passes every id of 1 to 100 UTF-16 units (longer ones zod measures in code points, and decides)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 100 }), (id) => {
        fc.pre(id.length <= 100);
        expect(quick({ [NAME]: id })).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(quick({ [NAME]: 'x'.repeat(101) })).toBe(false);
    expect(quick({ [NAME]: '😀'.repeat(51) })).toBe(false);
    expect(schema.safeParse({ [NAME]: '😀'.repeat(51) }).success).toBe(true);
  });

  it('treats the path as Fastify hands it over: an object without a prototype', () => {
    const fromRouter = Object.assign(Object.create(null) as object, { [NAME]: 'gl_1' });
    expect(quick(fromRouter)).toBe(true);
    expect(quick(Object.assign(Object.create(null) as object, { [NAME]: '' }))).toBe(false);
    expect(quick(Object.assign([], { [NAME]: 'gl_1' }))).toBe(false);
    expect(schema.safeParse(Object.assign([], { [NAME]: 'gl_1' })).success).toBe(false);
  });
});

describe('the text check of a path or a query string', () => {
  // NULs and lone surrogates often, so that clean and unclean values both come up.
  const text = fc.string({
    unit: fc.oneof(
      fc.constantFrom('a', '\u0000', '\uD800', '\uDC00', '😀'),
      fc.string({ minLength: 1, maxLength: 1 }),
    ),
    maxLength: 6,
  });
  const flat = fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 })), { maxKeys: 4 });

  it('finds what the walk finds, where it finds it', () => {
    fc.assert(
      fc.property(flat, (value) => {
        // Inside an array the value takes the walk's path (one level down): the oracle.
        const walked = textIssue([value]);
        const issue = textIssue(value);
        expect(issue).toEqual(walked && { ...walked, path: walked.path.slice(1) });
      }),
      { numRuns: 5000 },
    );
  });
});

describe('a record id in the path, through the server', () => {
  const server = forSuite(() => startServer('sqlite'));
  const api = devClient(server);

  it('goes to zod when empty, is looked up up to 100 characters, and is answered alike to HEAD', async () => {
    // The quick check declines an empty id: zod refuses it, in the interface's words. (Inside the path: a
    // trailing slash is dropped, so `/goals/` is the list.)
    expect(await api.get('/v1/dev/user/goals//history')).toMatchObject({
      status: 422,
      body: { detail: [{ loc: ['path', 'goal_id'], type: 'too_small' }] },
    });
    for (const id of ['x'.repeat(100), '😀'.repeat(50), ' ']) {
      expect(await api.get(`/v1/dev/user/goals/${encodeURIComponent(id)}`)).toMatchObject({
        status: 404,
        body: { detail: 'Goal not found' },
      });
    }
    // Longer ones are refused by the schema, naming the parameter; past 500 characters by the router.
    expect(await api.get(`/v1/dev/user/goals/${'x'.repeat(101)}`)).toMatchObject({
      status: 422,
      body: { detail: [{ loc: ['path', 'goal_id'], type: 'too_big' }] },
    });
    expect((await api.get(`/v1/dev/user/goals/${'x'.repeat(501)}`)).status).toBe(414);
    const goal = await api.post('/v1/dev/user/goals', { title: 'Headed', target_value: 2 });
    expect(goal.status).toBe(200);
    const url = `${server.baseUrl}/v1/dev/user/goals/${goal.body.id}`;
    const headers = { authorization: `Bearer ${server.init.developer_key}` };
    for (let round = 0; round < 2; round += 1) {
      const got = await fetch(url, { headers });
      const body = await got.text();
      const head = await fetch(url, { method: 'HEAD', headers });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      expect(head.headers.get('content-type')).toBe(got.headers.get('content-type'));
      expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
      expect(JSON.parse(body)).toMatchObject({ id: goal.body.id, title: 'Headed' });
    }
  });
});
