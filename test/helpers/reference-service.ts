// A stand-in for the real service's cloud (the third party our interface describes), for tests that prove the
// nodes do not depend on anything only devdata-server does. It answers as the real service's developer API
// document says (200 on creates, its field sets, its `omi_dev_` keys, FastAPI's error bodies) and, for the
// endpoints that document lacks (goals, the app notification), as its backend answers: a goal's history is a bare
// list, deleting a goal deletes it. It has nothing only our server has: no change feed, no `updated_since`, no
// `/deleted`, no idempotency key, no folder, person or screen-activity writes, no `GET /v1/dev/key`. Unknown body
// fields are ignored, as its request models do. One user, one in-memory store per resource.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The real service's eight developer scopes. */
export const REFERENCE_SCOPES = [
  'conversations:read',
  'conversations:write',
  'memories:read',
  'memories:write',
  'action_items:read',
  'action_items:write',
  'goals:read',
  'goals:write',
] as const;

/** Its memory categories: the three current ones and the older ones it still accepts and stores as given. */
const MEMORY_CATEGORIES = [
  'interesting',
  'system',
  'manual',
  'core',
  'hobbies',
  'lifestyle',
  'interests',
  'habits',
  'work',
  'skills',
  'learnings',
  'other',
  'auto',
];

const GOAL_TYPES = ['boolean', 'scale', 'numeric'];

export interface ReferenceRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  status: number;
  /** The answer's body (undefined when it had none). */
  response: unknown;
}

export interface ReferenceService {
  baseUrl: string;
  /** A developer key holding every scope the real service has. */
  developerKey: string;
  userId: string;
  appId: string;
  appSecret: string;
  /** Every request answered, in order. */
  requests: ReferenceRequest[];
  close(): Promise<void>;
}

type Json = Record<string, any>;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(typeof detail === 'string' ? detail : 'validation error');
  }
}

/** FastAPI's 422 for a request model that refuses a field. */
const invalid = (loc: Array<string | number>, msg: string, type = 'value_error') =>
  new HttpError(422, [{ loc, msg, type }]);

const now = () => new Date().toISOString();
const newKey = () => `omi_dev_${randomBytes(16).toString('hex')}`;
const displayForm = (key: string) => `omi_dev_${key.slice(8, 12)}...${key.slice(-4)}`;

function requireString(body: Json, field: string, loc: Array<string | number>, min = 1, max = Infinity) {
  const value = body[field];
  if (value === undefined) throw invalid([...loc, field], 'Field required', 'missing');
  if (typeof value !== 'string')
    throw invalid([...loc, field], 'Input should be a valid string', 'string_type');
  if (value.length < min || value.length > max)
    throw invalid([...loc, field], `String should have ${min}-${max} characters`, 'string_length');
  return value;
}

function optionalNumber(body: Json, field: string, loc: Array<string | number>): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number')
    throw invalid([...loc, field], 'Input should be a valid number', 'float_type');
  return value;
}

function optionalDate(body: Json, field: string, loc: Array<string | number>): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
    throw invalid([...loc, field], 'Input should be a valid datetime', 'datetime_parsing');
  return new Date(value).toISOString();
}

function oneOf(value: unknown, allowed: string[], loc: Array<string | number>) {
  if (typeof value !== 'string' || !allowed.includes(value))
    throw invalid(loc, `Input should be ${allowed.map((a) => `'${a}'`).join(', ')}`, 'enum');
  return value;
}

function queryInt(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value))
    throw invalid(['query', name], 'Input should be a valid integer', 'int_parsing');
  return value;
}

function queryBool(query: URLSearchParams, name: string): boolean | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw invalid(['query', name], 'Input should be a valid boolean', 'bool_parsing');
}

function page<T>(records: T[], query: URLSearchParams, defaultLimit: number): T[] {
  const limit = queryInt(query, 'limit', defaultLimit);
  const offset = queryInt(query, 'offset', 0);
  return records.slice(offset, offset + limit);
}

function inRange(createdAt: string, query: URLSearchParams): boolean {
  const start = query.get('start_date');
  const end = query.get('end_date');
  for (const [name, value] of [
    ['start_date', start],
    ['end_date', end],
  ] as const) {
    if (value !== null && Number.isNaN(Date.parse(value)))
      throw invalid(['query', name], 'Input should be a valid datetime', 'datetime_parsing');
  }
  const at = Date.parse(createdAt);
  return (start === null || at >= Date.parse(start)) && (end === null || at <= Date.parse(end));
}

/** `record` without `fields`. */
const omit = (record: Json, ...fields: string[]): Json =>
  Object.fromEntries(Object.entries(record).filter(([name]) => !fields.includes(name)));

const newestFirst = (records: Iterable<Json>): Json[] =>
  [...records].sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));

export async function startReferenceService(): Promise<ReferenceService> {
  const userId = `user_${randomUUID().slice(0, 8)}`;
  const appId = `app_${randomBytes(6).toString('hex')}`;
  const appSecret = `sk_${randomBytes(16).toString('hex')}`;
  const developerKey = newKey();
  const keys = new Map<string, Json>();
  const addKey = (name: string, scopes: string[] | null, secret = newKey()) => {
    const record = {
      id: randomUUID(),
      name,
      key_prefix: displayForm(secret),
      created_at: now(),
      last_used_at: null,
      scopes,
      secret,
    };
    keys.set(record.id, record);
    return record;
  };
  addKey('Default', [...REFERENCE_SCOPES], developerKey);

  const memories = new Map<string, Json>();
  const actionItems = new Map<string, Json>();
  const conversations = new Map<string, Json>();
  const goals = new Map<string, Json>();
  const goalHistory = new Map<string, Json[]>();
  const folders = new Map<string, Json>();
  const seededFolder = {
    id: randomUUID(),
    name: 'Work',
    description: 'Work conversations',
    color: '#3B82F6',
    icon: 'briefcase',
    created_at: now(),
    updated_at: now(),
    order: 0,
    is_default: true,
    is_system: true,
    category_mapping: 'work',
    conversation_count: 0,
  };
  folders.set(seededFolder.id, seededFolder);

  /** The scopes of the calling key, or a 401 as the real dependency answers it. */
  const authenticate = (request: IncomingMessage): string[] => {
    const header = request.headers.authorization;
    if (!header?.startsWith('Bearer '))
      throw new HttpError(401, "Missing or invalid Authorization header. Must be 'Bearer API_KEY'");
    const token = header.slice('Bearer '.length);
    const key = [...keys.values()].find((k) => k.secret === token);
    if (!token.startsWith('omi_dev_') || !key) throw new HttpError(401, 'Invalid API Key');
    key.last_used_at = now();
    return (key.scopes as string[] | null) ?? ['conversations:read', 'memories:read', 'action_items:read'];
  };
  const need = (scopes: string[], scope: string) => {
    if (!scopes.includes(scope))
      throw new HttpError(403, `Insufficient permissions. Required scope: ${scope}`);
  };

  const memoryOut = (m: Json) => ({ ...m, scoring: m.manually_added ? '01_999_' : '00_999_' });
  const newMemory = (body: Json, loc: Array<string | number>) => {
    const content = requireString(body, 'content', loc, 1, 500);
    const category =
      body.category === undefined || body.category === null
        ? 'interesting'
        : oneOf(body.category, MEMORY_CATEGORIES, [...loc, 'category']);
    const at = now();
    return {
      id: randomUUID(),
      content,
      category,
      visibility: typeof body.visibility === 'string' ? body.visibility : 'private',
      tags: Array.isArray(body.tags) ? body.tags.map(String) : [],
      created_at: at,
      updated_at: at,
      manually_added: true,
      reviewed: true,
      user_review: true,
      edited: false,
    };
  };

  const newActionItem = (body: Json, loc: Array<string | number>) => {
    const at = now();
    const completed = body.completed === true;
    return {
      id: randomUUID(),
      description: requireString(body, 'description', loc, 1, 500),
      completed,
      created_at: at,
      updated_at: at,
      due_at: optionalDate(body, 'due_at', loc) ?? null,
      completed_at: completed ? at : null,
      conversation_id: null,
    };
  };

  const newConversation = (body: Json, segments: Json[], source: string, text?: string) => {
    const startedAt = optionalDate(body, 'started_at', ['body']) ?? now();
    const lastEnd = segments.reduce((end, s) => Math.max(end, Number(s.end)), 0);
    const finishedAt =
      optionalDate(body, 'finished_at', ['body']) ??
      new Date(Date.parse(startedAt) + (segments.length ? lastEnd : 300) * 1000).toISOString();
    const geolocation = body.geolocation as Json | undefined;
    const record: Json = {
      id: randomUUID(),
      created_at: now(),
      started_at: startedAt,
      finished_at: finishedAt,
      language: typeof body.language === 'string' ? body.language : 'en',
      source,
      structured: {
        title: (text ?? segments.map((s) => s.text).join(' ')).slice(0, 40),
        overview: (text ?? segments.map((s) => s.text).join(' ')).slice(0, 200),
        emoji: '🧠',
        category: 'other',
        action_items: [],
        events: [],
      },
      transcript_segments: segments.map((s, i) => ({
        id: randomUUID(),
        text: s.text,
        speaker_id: typeof s.speaker_id === 'number' ? s.speaker_id : i % 2,
        speaker_name: typeof s.speaker === 'string' ? s.speaker : 'SPEAKER_00',
        start: s.start,
        end: s.end,
      })),
      ...(geolocation && typeof geolocation === 'object'
        ? { geolocation: { latitude: geolocation.latitude, longitude: geolocation.longitude } }
        : {}),
      folder_id: null,
      folder_name: null,
      discarded: false,
    };
    conversations.set(record.id, record);
    return { id: record.id, status: 'completed', discarded: false };
  };
  const conversationOut = (c: Json, includeTranscript: boolean) => {
    const fields = includeTranscript ? ['discarded'] : ['discarded', 'transcript_segments'];
    return omit(c, ...fields);
  };

  const found = <T>(record: T | undefined, what: string): T => {
    if (record === undefined) throw new HttpError(404, `${what} not found`);
    return record;
  };

  /** Route table: path pattern → method → handler. A path with no pattern is 404, a method not listed 405. */
  type Handler = (ctx: {
    scopes: () => string[];
    params: string[];
    query: URLSearchParams;
    body: Json;
    request: IncomingMessage;
  }) => { status?: number; body?: unknown };
  const routes: Array<[RegExp, Record<string, Handler>]> = [
    [
      /^\/v1\/dev\/keys$/,
      {
        GET: ({ scopes }) => {
          scopes();
          return { body: newestFirst(keys.values()).map((k) => omit(k, 'secret')) };
        },
        POST: ({ scopes, body }) => {
          scopes();
          const name = requireString(body, 'name', ['body']);
          if (!name.trim()) throw new HttpError(422, 'Key name cannot be empty');
          const requested = body.scopes ?? null;
          if (
            requested !== null &&
            (!Array.isArray(requested) ||
              requested.some((s) => !(REFERENCE_SCOPES as readonly string[]).includes(s)))
          )
            throw new HttpError(400, `Invalid scopes. Available: ${REFERENCE_SCOPES.join(', ')}`);
          const created = addKey(
            name.trim(),
            requested ?? ['conversations:read', 'memories:read', 'action_items:read', 'goals:read'],
          );
          const { secret, ...record } = created;
          return { body: { ...record, key: secret } };
        },
      },
    ],
    [
      /^\/v1\/dev\/keys\/([^/]+)$/,
      {
        DELETE: ({ scopes, params }) => {
          scopes();
          keys.delete(params[0]);
          return { status: 204 };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/memories$/,
      {
        GET: ({ scopes, query }) => {
          need(scopes(), 'memories:read');
          const categories = query.get('categories')?.split(',').filter(Boolean) ?? [];
          for (const c of categories)
            if (!MEMORY_CATEGORIES.includes(c)) throw new HttpError(400, `Invalid category '${c}'`);
          const list = newestFirst(memories.values()).filter(
            (m) => !categories.length || categories.includes(m.category),
          );
          return { body: page(list, query, 25).map(memoryOut) };
        },
        POST: ({ scopes, body }) => {
          need(scopes(), 'memories:write');
          const memory = newMemory(body, ['body']);
          memories.set(memory.id, memory);
          return { body: memoryOut(memory) };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/memories\/batch$/,
      {
        POST: ({ scopes, body }) => {
          need(scopes(), 'memories:write');
          const entries = body.memories;
          if (!Array.isArray(entries)) throw invalid(['body', 'memories'], 'Field required', 'missing');
          if (entries.length > 25)
            throw invalid(['body', 'memories'], 'List should have at most 25 items', 'too_long');
          const created = entries.map((entry, i) => newMemory(entry ?? {}, ['body', 'memories', i]));
          for (const m of created) memories.set(m.id, m);
          return { body: { memories: created.map(memoryOut), created_count: created.length } };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/memories\/([^/]+)$/,
      {
        PATCH: ({ scopes, params, body }) => {
          need(scopes(), 'memories:write');
          const memory = found(memories.get(params[0]), 'Memory');
          if (!['content', 'visibility', 'tags', 'category'].some((f) => body[f] !== undefined))
            throw new HttpError(422, 'At least one field must be provided');
          if (body.content !== undefined) {
            memory.content = requireString(body, 'content', ['body'], 1, 500);
            memory.edited = true;
            memory.updated_at = now();
          }
          if (body.visibility !== undefined) {
            if (!['public', 'private'].includes(body.visibility))
              throw new HttpError(422, "visibility must be 'public' or 'private'");
            memory.visibility = body.visibility;
          }
          if (body.category !== undefined)
            memory.category = oneOf(body.category, MEMORY_CATEGORIES, ['body', 'category']);
          if (Array.isArray(body.tags)) memory.tags = body.tags.map(String);
          return { body: memoryOut(memory) };
        },
        DELETE: ({ scopes, params }) => {
          need(scopes(), 'memories:write');
          found(memories.get(params[0]), 'Memory');
          memories.delete(params[0]);
          return { body: { success: true } };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/action-items$/,
      {
        GET: ({ scopes, query }) => {
          need(scopes(), 'action_items:read');
          const completed = queryBool(query, 'completed');
          const conversationId = query.get('conversation_id');
          const list = newestFirst(actionItems.values()).filter(
            (a) =>
              (completed === undefined || a.completed === completed) &&
              (conversationId === null || a.conversation_id === conversationId) &&
              inRange(a.created_at, query),
          );
          return { body: page(list, query, 100) };
        },
        POST: ({ scopes, body }) => {
          need(scopes(), 'action_items:write');
          const item = newActionItem(body, ['body']);
          actionItems.set(item.id, item);
          return { body: item };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/action-items\/batch$/,
      {
        POST: ({ scopes, body }) => {
          need(scopes(), 'action_items:write');
          const entries = body.action_items;
          if (!Array.isArray(entries)) throw invalid(['body', 'action_items'], 'Field required', 'missing');
          if (entries.length > 50)
            throw invalid(['body', 'action_items'], 'List should have at most 50 items', 'too_long');
          const created = entries.map((entry, i) => newActionItem(entry ?? {}, ['body', 'action_items', i]));
          for (const a of created) actionItems.set(a.id, a);
          return { body: { action_items: created, created_count: created.length } };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/action-items\/([^/]+)$/,
      {
        PATCH: ({ scopes, params, body }) => {
          need(scopes(), 'action_items:write');
          const item = found(actionItems.get(params[0]), 'Action item');
          if (body.description !== undefined)
            item.description = requireString(body, 'description', ['body'], 1, 500);
          if (typeof body.completed === 'boolean') {
            item.completed = body.completed;
            item.completed_at = body.completed ? now() : null;
          }
          // A null due date is ignored, as the real service does.
          const dueAt = optionalDate(body, 'due_at', ['body']);
          if (dueAt) item.due_at = dueAt;
          item.updated_at = now();
          return { body: item };
        },
        DELETE: ({ scopes, params }) => {
          need(scopes(), 'action_items:write');
          found(actionItems.get(params[0]), 'Action item');
          actionItems.delete(params[0]);
          return { body: { success: true } };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/folders$/,
      {
        GET: ({ scopes }) => {
          need(scopes(), 'conversations:read');
          return { body: [...folders.values()] };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/conversations$/,
      {
        GET: ({ scopes, query }) => {
          need(scopes(), 'conversations:read');
          const includeTranscript = queryBool(query, 'include_transcript') ?? false;
          const starred = queryBool(query, 'starred');
          const folderId = query.get('folder_id');
          const categories = query.get('categories')?.split(',').filter(Boolean) ?? [];
          const list = newestFirst(conversations.values()).filter(
            (c) =>
              !c.discarded &&
              inRange(c.created_at, query) &&
              (starred === undefined || !starred) &&
              (folderId === null || c.folder_id === folderId) &&
              (!categories.length || categories.includes(c.structured.category)),
          );
          return { body: page(list, query, 25).map((c) => conversationOut(c, includeTranscript)) };
        },
        POST: ({ scopes, body }) => {
          need(scopes(), 'conversations:write');
          const text = requireString(body, 'text', ['body'], 1, 100_000);
          if (body.text_source !== undefined)
            oneOf(body.text_source, ['audio_transcript', 'message', 'other_text'], ['body', 'text_source']);
          return { body: newConversation(body, [], 'external_integration', text) };
        },
      },
    ],
    [
      // The real service's conversation search: [{conversation, score}], every word of the query in the title,
      // overview or transcript (its ranking is its own; here, how many times the words occur).
      /^\/v1\/dev\/user\/conversations\/search$/,
      {
        GET: ({ scopes, query }) => {
          need(scopes(), 'conversations:read');
          const words = (query.get('query') ?? '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
          if (!words.length) throw invalid(['query', 'query'], 'Field required', 'missing');
          const found = newestFirst(conversations.values()).flatMap((c) => {
            const text = [
              c.structured.title,
              c.structured.overview,
              ...c.transcript_segments.map((s: Json) => s.text),
            ]
              .join(' ')
              .toLowerCase();
            const counts = words.map((word) => text.split(word).length - 1);
            return !c.discarded && inRange(c.started_at, query) && counts.every((n) => n > 0)
              ? [
                  {
                    conversation: conversationOut(c, queryBool(query, 'include_transcript') ?? false),
                    score: counts.reduce((a, b) => a + b, 0),
                  },
                ]
              : [];
          });
          found.sort((a, b) => b.score - a.score);
          return { body: found.slice(0, Number(query.get('limit') ?? 10)) };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/conversations\/from-segments$/,
      {
        POST: ({ scopes, body }) => {
          need(scopes(), 'conversations:write');
          const segments = body.transcript_segments;
          if (!Array.isArray(segments) || segments.length < 1 || segments.length > 500)
            throw invalid(['body', 'transcript_segments'], 'List should have 1-500 items', 'too_short');
          segments.forEach((s: Json, i: number) => {
            const loc = ['body', 'transcript_segments', i];
            requireString(s ?? {}, 'text', loc);
            for (const field of ['start', 'end']) {
              if (optionalNumber(s, field, loc) === undefined)
                throw invalid([...loc, field], 'Field required', 'missing');
            }
            if (s.end <= s.start) throw new HttpError(422, `Segment ${i}: end must be greater than start`);
          });
          const source = typeof body.source === 'string' ? body.source : 'external_integration';
          return { body: newConversation(body, segments, source) };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/conversations\/([^/]+)$/,
      {
        GET: ({ scopes, params, query }) => {
          need(scopes(), 'conversations:read');
          const conversation = found(conversations.get(params[0]), 'Conversation');
          return { body: conversationOut(conversation, queryBool(query, 'include_transcript') ?? false) };
        },
        PATCH: ({ scopes, params, body }) => {
          need(scopes(), 'conversations:write');
          const conversation = found(conversations.get(params[0]), 'Conversation');
          if (body.title === undefined && body.discarded === undefined)
            throw new HttpError(422, 'At least one field (title or discarded) must be provided');
          if (body.title !== undefined)
            conversation.structured.title = requireString(body, 'title', ['body'], 1, 500);
          if (typeof body.discarded === 'boolean') conversation.discarded = body.discarded;
          return { body: conversationOut(conversation, false) };
        },
        DELETE: ({ scopes, params }) => {
          need(scopes(), 'conversations:write');
          found(conversations.get(params[0]), 'Conversation');
          conversations.delete(params[0]);
          return { body: { success: true } };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/goals$/,
      {
        GET: ({ scopes, query }) => {
          need(scopes(), 'goals:read');
          const all = newestFirst(goals.values());
          if (queryBool(query, 'include_inactive')) return { body: all };
          return { body: all.filter((g) => g.is_active).slice(0, queryInt(query, 'limit', 10)) };
        },
        POST: ({ scopes, body }) => {
          need(scopes(), 'goals:write');
          const title = requireString(body, 'title', ['body'], 1, 500);
          const targetValue = optionalNumber(body, 'target_value', ['body']);
          if (targetValue === undefined) throw invalid(['body', 'target_value'], 'Field required', 'missing');
          const at = now();
          const goal = {
            id: `goal_${randomBytes(6).toString('hex')}`,
            title: title.trim(),
            goal_type:
              body.goal_type === undefined
                ? 'scale'
                : oneOf(body.goal_type, GOAL_TYPES, ['body', 'goal_type']),
            target_value: targetValue,
            current_value: optionalNumber(body, 'current_value', ['body']) ?? 0,
            min_value: optionalNumber(body, 'min_value', ['body']) ?? 0,
            max_value: optionalNumber(body, 'max_value', ['body']) ?? 10,
            unit: typeof body.unit === 'string' ? body.unit : null,
            is_active: true,
            created_at: at,
            updated_at: at,
          };
          goals.set(goal.id, goal);
          return { body: goal };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/goals\/([^/]+)$/,
      {
        GET: ({ scopes, params }) => {
          need(scopes(), 'goals:read');
          return { body: found(goals.get(params[0]), 'Goal') };
        },
        PATCH: ({ scopes, params, body }) => {
          need(scopes(), 'goals:write');
          const fields = ['title', 'target_value', 'current_value', 'min_value', 'max_value', 'unit'];
          if (!fields.some((f) => body[f] !== undefined))
            throw new HttpError(422, 'At least one field must be provided');
          const goal = found(goals.get(params[0]), 'Goal');
          if (body.title !== undefined) goal.title = requireString(body, 'title', ['body'], 1, 500).trim();
          for (const f of ['target_value', 'current_value', 'min_value', 'max_value']) {
            const value = optionalNumber(body, f, ['body']);
            if (value !== undefined) goal[f] = value;
          }
          if (typeof body.unit === 'string') goal.unit = body.unit;
          goal.updated_at = now();
          return { body: goal };
        },
        DELETE: ({ scopes, params }) => {
          need(scopes(), 'goals:write');
          if (!goals.delete(params[0])) throw new HttpError(404, 'Goal not found');
          goalHistory.delete(params[0]);
          return { body: { success: true } };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/goals\/([^/]+)\/progress$/,
      {
        PATCH: ({ scopes, params, query }) => {
          need(scopes(), 'goals:write');
          const raw = query.get('current_value');
          if (raw === null || !Number.isFinite(Number(raw)))
            throw invalid(['query', 'current_value'], 'Field required', 'missing');
          const goal = found(goals.get(params[0]), 'Goal');
          goal.current_value = Number(raw);
          goal.updated_at = now();
          const date = goal.updated_at.slice(0, 10);
          const history = (goalHistory.get(goal.id) ?? []).filter((h) => h.date !== date);
          goalHistory.set(goal.id, [
            { date, value: goal.current_value, recorded_at: goal.updated_at },
            ...history,
          ]);
          return { body: goal };
        },
      },
    ],
    [
      /^\/v1\/dev\/user\/goals\/([^/]+)\/history$/,
      {
        GET: ({ scopes, params, query }) => {
          need(scopes(), 'goals:read');
          const days = queryInt(query, 'days', 30);
          if (days > 365) throw invalid(['query', 'days'], 'Input should be less than or equal to 365');
          return { body: goalHistory.get(params[0]) ?? [] };
        },
      },
    ],
    [
      /^\/v2\/integrations\/([^/]+)\/notification$/,
      {
        POST: ({ params, query, request }) => {
          for (const name of ['message', 'uid'])
            if (query.get(name) === null) throw invalid(['query', name], 'Field required', 'missing');
          const header = request.headers.authorization;
          if (!header?.startsWith('Bearer '))
            throw new HttpError(401, "Missing or invalid Authorization header. Must be 'Bearer API_KEY'");
          if (params[0] !== appId || header.slice('Bearer '.length) !== appSecret)
            throw new HttpError(403, 'Invalid API key');
          if (query.get('uid') !== userId) throw new HttpError(404, 'App not found');
          return { body: { status: 'Ok' } };
        },
      },
    ],
  ];

  const requests: ReferenceRequest[] = [];
  const respond = (response: ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) {
      response.writeHead(status).end();
      return;
    }
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://reference');
      const text = Buffer.concat(chunks).toString('utf8');
      let status = 200;
      let body: unknown;
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : {};
        const route = routes.find(([pattern]) => pattern.test(url.pathname));
        if (!route) throw new HttpError(404, 'Not Found');
        const handler = route[1][request.method ?? 'GET'];
        if (!handler) throw new HttpError(405, 'Method Not Allowed');
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          throw invalid(['body'], 'Input should be a valid dictionary', 'dict_type');
        const params = (route[0].exec(url.pathname) ?? []).slice(1).map(decodeURIComponent);
        const answer = handler({
          scopes: () => authenticate(request),
          params,
          query: url.searchParams,
          body: parsed as Json,
          request,
        });
        status = answer.status ?? 200;
        body = answer.body;
      } catch (error) {
        if (error instanceof HttpError) {
          status = error.status;
          body = { detail: error.detail };
        } else if (error instanceof SyntaxError) {
          status = 422;
          body = { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] };
        } else {
          status = 500;
          body = { detail: 'Internal Server Error' };
        }
      }
      requests.push({
        method: request.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body: parsed,
        status,
        response: body,
      });
      respond(response, status, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    developerKey,
    userId,
    appId,
    appSecret,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
