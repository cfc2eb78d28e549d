// The real service's developer API answers, as its published OpenAPI document describes them: our own
// transcription (JSON Schema 2020-12 built from the small helpers below), kept to the endpoints both it and
// devdata-server have, with the statuses it documents for each. Nothing here is required beyond what the
// document requires (it requires no response field), and no object is closed (it closes none), so fields only
// devdata-server returns are allowed. Where our interface shows something else, REFERENCE_EXCEPTIONS says so.
import addFormats from 'ajv-formats';
import Ajv2020 from 'ajv8/dist/2020';
import type { Client, Reply } from './http';

export type Shape = Record<string, unknown>;

const string = (extra: Shape = {}): Shape => ({ type: 'string', ...extra });
const dateTime: Shape = { type: 'string', format: 'date-time' };
const boolean: Shape = { type: 'boolean' };
const integer: Shape = { type: 'integer' };
const number: Shape = { type: 'number' };
const orNull = (shape: Shape): Shape => ({ ...shape, type: [shape.type, 'null'] });
const listOf = (items: Shape): Shape => ({ type: 'array', items });
const object = (properties: Record<string, Shape>): Shape => ({ type: 'object', properties });

/** Every error the document describes: a `detail` string. */
const error = object({ detail: string() });
const success = object({ success: boolean });

/** The memory categories the document lists; the real service's backend also keeps its older ones. */
const DOCUMENTED_CATEGORIES = ['interesting', 'system', 'manual'];

const memory = object({
  id: string(),
  content: string(),
  category: string({ enum: DOCUMENTED_CATEGORIES }),
  visibility: string({ enum: ['public', 'private'] }),
  tags: listOf(string()),
  created_at: dateTime,
  updated_at: dateTime,
  manually_added: boolean,
  reviewed: boolean,
  user_review: orNull(boolean),
  edited: boolean,
});

const actionItem = object({
  id: string(),
  description: string(),
  completed: boolean,
  created_at: dateTime,
  updated_at: dateTime,
  due_at: orNull(dateTime),
  completed_at: orNull(dateTime),
  conversation_id: orNull(string()),
});

const conversation = object({
  id: string(),
  created_at: dateTime,
  started_at: dateTime,
  finished_at: dateTime,
  language: string(),
  source: string(),
  structured: object({
    title: string(),
    overview: string(),
    emoji: string(),
    category: string(),
    action_items: listOf(
      object({
        description: string(),
        completed: boolean,
        created_at: dateTime,
        updated_at: dateTime,
        due_at: orNull(dateTime),
        completed_at: orNull(dateTime),
      }),
    ),
    events: listOf({ type: 'object' }),
  }),
  transcript_segments: listOf(
    object({
      id: string(),
      text: string(),
      speaker_id: integer,
      speaker_name: string(),
      start: number,
      end: number,
    }),
  ),
  // An object when present: a conversation without a place leaves it out rather than sending null.
  geolocation: object({
    latitude: number,
    longitude: number,
    address: string(),
    google_place_id: string(),
    location_type: string(),
  }),
  folder_id: orNull(string()),
  folder_name: orNull(string()),
});

/** What a conversation create answers: the document's three fields (devdata-server adds the whole record). */
const conversationCreated = object({ id: string(), status: string(), discarded: boolean });

const folder = object({
  id: string(),
  name: string({ minLength: 1, maxLength: 100 }),
  description: orNull(string({ maxLength: 500 })),
  color: string(),
  icon: string(),
  created_at: dateTime,
  updated_at: dateTime,
  order: integer,
  is_default: boolean,
  is_system: boolean,
  category_mapping: orNull(string()),
  conversation_count: integer,
});

const apiKey = object({
  id: string(),
  name: string(),
  key_prefix: string(),
  created_at: dateTime,
  last_used_at: orNull(dateTime),
  scopes: { type: ['array', 'null'], items: string() },
});
const apiKeyCreated = { ...apiKey, properties: { ...(apiKey.properties as Shape), key: string() } };

/**
 * Fields the document describes that an answer may leave out: a conversation's place when it has none (the
 * document gives no null for it), its transcript unless asked for, and a place's optional parts. Paths name a
 * field inside a list's items with `[]`, e.g. `[].geolocation`.
 */
export const MAY_BE_ABSENT = [
  'geolocation',
  '[].geolocation',
  'transcript_segments',
  '[].transcript_segments',
  ...['address', 'google_place_id', 'location_type'].flatMap((field) => [
    `geolocation.${field}`,
    `[].geolocation.${field}`,
  ]),
];

/** The fields `shape` describes that `body` lacks, as paths (`[].structured.emoji`), but for MAY_BE_ABSENT. */
export function absentFields(shape: Shape, body: unknown, path = ''): string[] {
  if (shape.type === 'array' && Array.isArray(body))
    return [...new Set(body.flatMap((item) => absentFields(shape.items as Shape, item, `${path}[]`)))];
  if (!shape.properties || typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  return Object.entries(shape.properties as Record<string, Shape>).flatMap(([name, field]) => {
    const at = path ? `${path}.${name}` : name;
    if (!(name in body)) return MAY_BE_ABSENT.includes(at) ? [] : [at];
    return absentFields(field, (body as Record<string, unknown>)[name], at);
  });
}

/** A documented answer without a body (204). */
export const NO_BODY = 'no body';

/** Each endpoint's documented statuses and, for each, the shape of its JSON body. */
export const REFERENCE_ENDPOINTS: Record<string, Record<number, Shape | typeof NO_BODY>> = {
  'GET /v1/dev/user/memories': { 200: listOf(memory), 401: error },
  'POST /v1/dev/user/memories': { 200: memory, 401: error, 422: error },
  'POST /v1/dev/user/memories/batch': {
    200: object({ memories: listOf(memory), created_count: integer }),
    401: error,
    422: error,
  },
  'PATCH /v1/dev/user/memories/{id}': { 200: memory, 401: error, 404: error, 422: error },
  'DELETE /v1/dev/user/memories/{id}': { 200: success, 401: error, 404: error },
  'GET /v1/dev/user/folders': { 200: listOf(folder), 401: error, 403: error },
  'GET /v1/dev/user/conversations': {
    200: listOf(conversation),
    400: error,
    401: error,
    403: error,
    422: error,
  },
  'POST /v1/dev/user/conversations': { 200: conversationCreated, 401: error, 422: error },
  'POST /v1/dev/user/conversations/from-segments': { 200: conversationCreated, 401: error, 422: error },
  'GET /v1/dev/user/conversations/{id}': { 200: conversation, 401: error, 404: error },
  'PATCH /v1/dev/user/conversations/{id}': { 200: conversation, 401: error, 404: error, 422: error },
  'DELETE /v1/dev/user/conversations/{id}': { 200: success, 401: error, 404: error },
  'GET /v1/dev/user/action-items': { 200: listOf(actionItem), 401: error },
  'POST /v1/dev/user/action-items': { 200: actionItem, 401: error, 422: error },
  'POST /v1/dev/user/action-items/batch': {
    200: object({ action_items: listOf(actionItem), created_count: integer }),
    401: error,
    422: error,
  },
  'PATCH /v1/dev/user/action-items/{id}': { 200: actionItem, 401: error, 404: error, 422: error },
  'DELETE /v1/dev/user/action-items/{id}': { 200: success, 401: error, 404: error },
  'GET /v1/dev/keys': { 200: listOf(apiKey), 401: error },
  'POST /v1/dev/keys': { 200: apiKeyCreated, 401: error, 422: error },
  'DELETE /v1/dev/keys/{id}': { 204: NO_BODY, 401: error, 404: error },
};

/** One request to devdata-server and its answer, by the endpoint's template (`PATCH /v1/dev/keys/{id}`). */
export interface Exchange {
  endpoint: string;
  /** What the request was for, to name it when it fails. */
  case: string;
  status: number;
  body: unknown;
}

/**
 * Where devdata-server answers otherwise than the document, because our interface shows something it does not
 * (or issue 26 decided it): each applies to the exchanges `applies` picks, and lets `status` through with
 * `shape` instead of the document's.
 */
export interface ReferenceException {
  why: string;
  applies(exchange: Exchange): boolean;
  shape: Shape;
}

const validationIssues = object({
  detail: {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      required: ['loc', 'msg', 'type'],
      properties: { loc: { type: 'array' }, msg: string(), type: string() },
    },
  },
});

export const REFERENCE_EXCEPTIONS: ReferenceException[] = [
  {
    why: "A 422's detail is a list of {loc, msg, type} issues, as the interface shows every validation error (the document: a string)",
    applies: (e) => e.status === 422 && 422 in REFERENCE_ENDPOINTS[e.endpoint],
    shape: validationIssues,
  },
  {
    why: 'A list refuses a bad query parameter with 422 where the document lists no 422 (the interface: every validation failure is a 422)',
    applies: (e) => e.status === 422 && !(422 in REFERENCE_ENDPOINTS[e.endpoint]),
    shape: validationIssues,
  },
  {
    why: 'A key without the endpoint\'s scope gets 403 "Insufficient permissions. Required scope: …" on every endpoint, as the interface shows; the document lists 403 only for folders and the conversation list',
    applies: (e) => e.status === 403 && !(403 in REFERENCE_ENDPOINTS[e.endpoint]),
    shape: error,
  },
  {
    why: "A memory created with one of the real service's older categories (core, hobbies, work, …) is answered with it, as that service's backend stores and returns them; its document's enum lists only interesting, system and manual",
    applies: (e) =>
      e.endpoint === 'POST /v1/dev/user/memories' &&
      e.status === 200 &&
      !DOCUMENTED_CATEGORIES.includes((e.body as { category?: string }).category ?? ''),
    shape: object({ ...(memory.properties as Record<string, Shape>), category: string() }),
  },
];

/** The exception that lets this exchange through, if it is not as documented. */
export function exceptionFor(exchange: Exchange): ReferenceException | undefined {
  return REFERENCE_EXCEPTIONS.find((exception) => exception.applies(exchange));
}

// ajv 8 for JSON Schema 2020-12, the document's dialect; installed as `ajv8` beside the ajv 6 eslint needs.
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);

/** What is wrong with an exchange, or undefined when it is as documented (or as an exception allows). */
export function problemWith(exchange: Exchange): string | undefined {
  const documented = REFERENCE_ENDPOINTS[exchange.endpoint];
  const exception = exceptionFor(exchange);
  const shape = exception?.shape ?? documented[exchange.status];
  if (shape === undefined) return `status ${exchange.status} is not documented`;
  if (shape === NO_BODY) return exchange.body === undefined ? undefined : 'a body where none is documented';
  const validate = ajv.compile(shape);
  return validate(exchange.body) ? undefined : JSON.stringify(validate.errors);
}

/** The documented fields a documented success answer lacks (none for other answers). */
export function missingFields(exchange: Exchange): string[] {
  const shape = exchange.status < 300 ? REFERENCE_ENDPOINTS[exchange.endpoint][exchange.status] : undefined;
  return shape === undefined || shape === NO_BODY ? [] : absentFields(shape, exchange.body);
}

/** The documented endpoint a request went to (`PATCH /v1/dev/keys/{id}`), if it is one. */
export function endpointOf(method: string, path: string): string | undefined {
  const segments = path.split('/');
  return Object.keys(REFERENCE_ENDPOINTS).find((endpoint) => {
    const [documentedMethod, template] = endpoint.split(' ');
    const parts = template.split('/');
    return (
      documentedMethod === method &&
      parts.length === segments.length &&
      // `search` names the conversation search (a route of its own there too), never a record.
      parts.every(
        (part, i) => part === segments[i] || (part === '{id}' && !['', 'search'].includes(segments[i])),
      )
    );
  });
}

const MISSING_ID = '0000000000000000deadbeef';

/**
 * Calls every endpoint both sides have, once per documented status it can reach (and the exceptions' statuses),
 * with `client` (a key holding every scope), `anonymous` (no key) and `narrow` (a key holding memories:read only).
 */
export async function exerciseDeveloperApi(
  client: Client,
  anonymous: Client,
  narrow: Client,
): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  const record = async (endpoint: string, what: string, reply: Promise<Reply>) => {
    const { status, body } = await reply;
    exchanges.push({ endpoint, case: what, status, body });
    return body as any;
  };
  const unauthorized = (endpoint: string, reply: Promise<Reply>) => record(endpoint, 'no key', reply);

  // Memories
  const memory = await record(
    'POST /v1/dev/user/memories',
    'create',
    client.post('/v1/dev/user/memories', {
      content: 'Likes green tea',
      tags: ['tea'],
      visibility: 'private',
    }),
  );
  await record(
    'POST /v1/dev/user/memories',
    'create with a category',
    client.post('/v1/dev/user/memories', { content: 'Works remotely', category: 'system' }),
  );
  const older = await record(
    'POST /v1/dev/user/memories',
    'create with an older category',
    client.post('/v1/dev/user/memories', { content: 'Builds furniture', category: 'hobbies' }),
  );
  // Gone before the list is asked for, whose answer the exception does not cover.
  await client.delete(`/v1/dev/user/memories/${older.id}`);
  await record(
    'POST /v1/dev/user/memories',
    'empty content',
    client.post('/v1/dev/user/memories', { content: '' }),
  );
  await unauthorized('POST /v1/dev/user/memories', anonymous.post('/v1/dev/user/memories', { content: 'x' }));
  await record(
    'POST /v1/dev/user/memories',
    'key without memories:write',
    narrow.post('/v1/dev/user/memories', { content: 'x' }),
  );
  await record(
    'POST /v1/dev/user/memories/batch',
    'batch',
    client.post('/v1/dev/user/memories/batch', { memories: [{ content: 'One' }, { content: 'Two' }] }),
  );
  await record(
    'POST /v1/dev/user/memories/batch',
    'batch of 26',
    client.post('/v1/dev/user/memories/batch', {
      memories: Array.from({ length: 26 }, (_, i) => ({ content: `M${i}` })),
    }),
  );
  await unauthorized('POST /v1/dev/user/memories/batch', anonymous.post('/v1/dev/user/memories/batch', {}));
  await record('GET /v1/dev/user/memories', 'list', client.get('/v1/dev/user/memories', { limit: 10 }));
  await record('GET /v1/dev/user/memories', 'limit -1', client.get('/v1/dev/user/memories', { limit: -1 }));
  await unauthorized('GET /v1/dev/user/memories', anonymous.get('/v1/dev/user/memories'));
  await record(
    'PATCH /v1/dev/user/memories/{id}',
    'update content',
    client.patch(`/v1/dev/user/memories/${memory.id}`, { content: 'Likes oolong tea' }),
  );
  await record(
    'PATCH /v1/dev/user/memories/{id}',
    'visibility not an option',
    client.patch(`/v1/dev/user/memories/${memory.id}`, { visibility: 'friends' }),
  );
  await record(
    'PATCH /v1/dev/user/memories/{id}',
    'unknown id',
    client.patch(`/v1/dev/user/memories/${MISSING_ID}`, { content: 'x' }),
  );
  await unauthorized(
    'PATCH /v1/dev/user/memories/{id}',
    anonymous.patch(`/v1/dev/user/memories/${memory.id}`, {}),
  );
  await record(
    'DELETE /v1/dev/user/memories/{id}',
    'delete',
    client.delete(`/v1/dev/user/memories/${memory.id}`),
  );
  await record(
    'DELETE /v1/dev/user/memories/{id}',
    'unknown id',
    client.delete(`/v1/dev/user/memories/${MISSING_ID}`),
  );
  await unauthorized(
    'DELETE /v1/dev/user/memories/{id}',
    anonymous.delete(`/v1/dev/user/memories/${memory.id}`),
  );

  // Action items
  const item = await record(
    'POST /v1/dev/user/action-items',
    'create',
    client.post('/v1/dev/user/action-items', {
      description: 'Send the contract',
      due_at: '2026-12-01T10:00:00Z',
    }),
  );
  await record(
    'POST /v1/dev/user/action-items',
    'no description',
    client.post('/v1/dev/user/action-items', { completed: true }),
  );
  await unauthorized('POST /v1/dev/user/action-items', anonymous.post('/v1/dev/user/action-items', {}));
  await record(
    'POST /v1/dev/user/action-items/batch',
    'batch',
    client.post('/v1/dev/user/action-items/batch', {
      action_items: [{ description: 'A' }, { description: 'B', completed: true }],
    }),
  );
  await record(
    'POST /v1/dev/user/action-items/batch',
    'entry without a description',
    client.post('/v1/dev/user/action-items/batch', { action_items: [{ description: 'A' }, {}] }),
  );
  await unauthorized(
    'POST /v1/dev/user/action-items/batch',
    anonymous.post('/v1/dev/user/action-items/batch', {}),
  );
  await record('GET /v1/dev/user/action-items', 'list', client.get('/v1/dev/user/action-items'));
  await record(
    'GET /v1/dev/user/action-items',
    'filtered',
    client.get('/v1/dev/user/action-items', { completed: true, start_date: '2020-01-01T00:00:00Z' }),
  );
  await record(
    'GET /v1/dev/user/action-items',
    'start date not a date',
    client.get('/v1/dev/user/action-items', { start_date: 'tomorrow' }),
  );
  await unauthorized('GET /v1/dev/user/action-items', anonymous.get('/v1/dev/user/action-items'));
  await record(
    'PATCH /v1/dev/user/action-items/{id}',
    'complete',
    client.patch(`/v1/dev/user/action-items/${item.id}`, { completed: true }),
  );
  await record(
    'PATCH /v1/dev/user/action-items/{id}',
    'empty description',
    client.patch(`/v1/dev/user/action-items/${item.id}`, { description: '' }),
  );
  await record(
    'PATCH /v1/dev/user/action-items/{id}',
    'unknown id',
    client.patch(`/v1/dev/user/action-items/${MISSING_ID}`, { completed: true }),
  );
  await unauthorized(
    'PATCH /v1/dev/user/action-items/{id}',
    anonymous.patch(`/v1/dev/user/action-items/${item.id}`, {}),
  );
  await record(
    'DELETE /v1/dev/user/action-items/{id}',
    'delete',
    client.delete(`/v1/dev/user/action-items/${item.id}`),
  );
  await record(
    'DELETE /v1/dev/user/action-items/{id}',
    'unknown id',
    client.delete(`/v1/dev/user/action-items/${MISSING_ID}`),
  );
  await unauthorized(
    'DELETE /v1/dev/user/action-items/{id}',
    anonymous.delete(`/v1/dev/user/action-items/${item.id}`),
  );

  // Conversations
  const fromText = await record(
    'POST /v1/dev/user/conversations',
    'create from text',
    client.post('/v1/dev/user/conversations', {
      text: 'We agreed to ship on Friday.',
      text_source: 'message',
      started_at: '2026-11-20T10:00:00Z',
      language: 'en',
    }),
  );
  await record(
    'POST /v1/dev/user/conversations',
    'create with a place',
    client.post('/v1/dev/user/conversations', {
      text: 'At the office',
      geolocation: { latitude: 52.5, longitude: 13.4 },
    }),
  );
  await record('POST /v1/dev/user/conversations', 'no text', client.post('/v1/dev/user/conversations', {}));
  await unauthorized(
    'POST /v1/dev/user/conversations',
    anonymous.post('/v1/dev/user/conversations', { text: 'x' }),
  );
  const fromSegments = await record(
    'POST /v1/dev/user/conversations/from-segments',
    'create from segments',
    client.post('/v1/dev/user/conversations/from-segments', {
      transcript_segments: [
        { text: 'Hello', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1.5 },
        { text: 'Hi there', speaker: 'SPEAKER_01', speaker_id: 1, person_id: 'p-1', start: 1.5, end: 3 },
      ],
      source: 'phone',
    }),
  );
  await record(
    'POST /v1/dev/user/conversations/from-segments',
    'no segments',
    client.post('/v1/dev/user/conversations/from-segments', { transcript_segments: [] }),
  );
  await unauthorized(
    'POST /v1/dev/user/conversations/from-segments',
    anonymous.post('/v1/dev/user/conversations/from-segments', {}),
  );
  await record(
    'GET /v1/dev/user/conversations',
    'list with transcripts',
    client.get('/v1/dev/user/conversations', { include_transcript: true }),
  );
  await record(
    'GET /v1/dev/user/conversations',
    'unknown category',
    client.get('/v1/dev/user/conversations', { categories: 'not-a-category' }),
  );
  await record(
    'GET /v1/dev/user/conversations',
    'limit 0',
    client.get('/v1/dev/user/conversations', { limit: 0 }),
  );
  await record(
    'GET /v1/dev/user/conversations',
    'key without conversations:read',
    narrow.get('/v1/dev/user/conversations'),
  );
  await unauthorized('GET /v1/dev/user/conversations', anonymous.get('/v1/dev/user/conversations'));
  for (const conversation of [fromText, fromSegments]) {
    await record(
      'GET /v1/dev/user/conversations/{id}',
      'get with transcript',
      client.get(`/v1/dev/user/conversations/${conversation.id}`, { include_transcript: true }),
    );
  }
  await record(
    'GET /v1/dev/user/conversations/{id}',
    'unknown id',
    client.get(`/v1/dev/user/conversations/${MISSING_ID}`),
  );
  await unauthorized(
    'GET /v1/dev/user/conversations/{id}',
    anonymous.get(`/v1/dev/user/conversations/${fromText.id}`),
  );
  await record(
    'PATCH /v1/dev/user/conversations/{id}',
    'rename',
    client.patch(`/v1/dev/user/conversations/${fromText.id}`, { title: 'Release date' }),
  );
  await record(
    'PATCH /v1/dev/user/conversations/{id}',
    'empty title',
    client.patch(`/v1/dev/user/conversations/${fromText.id}`, { title: '' }),
  );
  await record(
    'PATCH /v1/dev/user/conversations/{id}',
    'unknown id',
    client.patch(`/v1/dev/user/conversations/${MISSING_ID}`, { title: 'x' }),
  );
  await unauthorized(
    'PATCH /v1/dev/user/conversations/{id}',
    anonymous.patch(`/v1/dev/user/conversations/${fromText.id}`, {}),
  );
  await record(
    'DELETE /v1/dev/user/conversations/{id}',
    'delete',
    client.delete(`/v1/dev/user/conversations/${fromText.id}`),
  );
  await record(
    'DELETE /v1/dev/user/conversations/{id}',
    'unknown id',
    client.delete(`/v1/dev/user/conversations/${MISSING_ID}`),
  );
  await unauthorized(
    'DELETE /v1/dev/user/conversations/{id}',
    anonymous.delete(`/v1/dev/user/conversations/${fromSegments.id}`),
  );

  // Folders: only the list is in the document; the folder it lists is made through devdata-server's own create.
  await client.post('/v1/dev/user/folders', { name: 'Work' });
  await client.post('/v1/dev/user/folders', { name: 'Travel', color: '#10B981', description: 'Trips' });
  await record('GET /v1/dev/user/folders', 'list', client.get('/v1/dev/user/folders'));
  await record(
    'GET /v1/dev/user/folders',
    'key without conversations:read',
    narrow.get('/v1/dev/user/folders'),
  );
  await unauthorized('GET /v1/dev/user/folders', anonymous.get('/v1/dev/user/folders'));

  // Developer keys
  const key = await record(
    'POST /v1/dev/keys',
    'create',
    client.post('/v1/dev/keys', { name: 'Dashboard', scopes: ['memories:read'] }),
  );
  await record('POST /v1/dev/keys', 'no name', client.post('/v1/dev/keys', { scopes: ['memories:read'] }));
  await unauthorized('POST /v1/dev/keys', anonymous.post('/v1/dev/keys', { name: 'x' }));
  await record('GET /v1/dev/keys', 'list', client.get('/v1/dev/keys'));
  await unauthorized('GET /v1/dev/keys', anonymous.get('/v1/dev/keys'));
  await record('DELETE /v1/dev/keys/{id}', 'revoke', client.delete(`/v1/dev/keys/${key?.id ?? MISSING_ID}`));
  await record('DELETE /v1/dev/keys/{id}', 'unknown id', client.delete(`/v1/dev/keys/${MISSING_ID}`));
  await unauthorized('DELETE /v1/dev/keys/{id}', anonymous.delete(`/v1/dev/keys/${MISSING_ID}`));

  return exchanges;
}
