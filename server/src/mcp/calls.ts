// A tool call from arguments to result. Every refusal is a tool result (isError, with the real service's error
// code in structuredContent.error.code), never a JSON-RPC error: a model reads a tool result and can act on it.
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { ISO_DATE_TIME, quoted, shortName, textIssue, unknownFieldMessage } from '../contract/common';
import type { Scope } from '../contract/scopes';
import { UnprocessableError } from '../http/http-errors';
import { Conflict, isUnavailable, NotFound } from '../store/db/store-errors';
import { toolAnswer } from './budget';
import { TOOLS, type McpTool, type ToolContext } from './tools';

export const ERROR_CODES = [
  'invalid_arguments',
  'not_found',
  'authorization_denied',
  'rate_limited',
  'unavailable',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: true;
}

export function refusal(code: ErrorCode, message: string): ToolResult {
  return {
    content: [{ type: 'text', text: `${code}: ${message}` }],
    structuredContent: { error: { code, message } },
    isError: true,
  };
}

/** The refusal of a call that found the database out of reach (logged: the operator should know). */
export function databaseUnavailable(error: unknown, log: FastifyBaseLogger): ToolResult {
  log.warn({ err: error }, 'database unavailable');
  return refusal('unavailable', 'The database is out of reach; try again in a few seconds');
}

const TOOLS_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));

/** What a string form of a union may hold for the union to be told as a plain string. */
const STRING_FORM = new Set(['type', 'format', 'pattern']);

/** The tools as tools/list announces them: JSON Schema of the arguments, and hints on what each changes. */
export const TOOL_LIST = TOOLS.map((tool) => {
  const inputSchema: Record<string, unknown> = {
    ...z.toJSONSchema(tool.input, {
      io: 'input',
      unrepresentable: 'any',
      // A date's format and its field's description say what it takes: zod's regular expression for it is
      // ~600 characters a field, repeated in every date field. The server checks dates as strictly without it.
      // A field's description covers the forms it takes (a date or null): theirs would repeat it.
      override: ({ zodSchema, jsonSchema }) => {
        if (
          zodSchema instanceof z.ZodISODate ||
          zodSchema instanceof z.ZodISODateTime ||
          jsonSchema.pattern === ISO_DATE_TIME.source
        )
          delete jsonSchema.pattern;
        if (jsonSchema.description !== undefined)
          for (const form of jsonSchema.anyOf ?? []) delete form.description;
        // A date filter's forms (a date, a date-time) are both strings, and its null: told as one type, where
        // an anyOf nested in an anyOf is bytes in every turn of a model and more than some clients' converters take.
        const forms = jsonSchema.anyOf;
        if (
          forms?.every(
            (form) => form.type === 'string' && Object.keys(form).every((key) => STRING_FORM.has(key)),
          )
        ) {
          delete jsonSchema.anyOf;
          jsonSchema.type = 'string';
        }
        // zod bounds every integer at the safest one: a bound that tells a model nothing.
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      },
    }),
  };
  // Clients read the arguments' schema without the dialect line, as the SDK's own servers send it.
  delete inputSchema.$schema;
  return {
    name: tool.name,
    title: tool.title,
    description: `${tool.description} Needs the key scope ${tool.scope}.`,
    inputSchema: inputSchema as { type: 'object'; [key: string]: unknown },
    annotations: {
      // Where a client of protocol 2025-03-26, before the tool's own title, looks for it.
      title: tool.title,
      readOnlyHint: tool.kind === 'read',
      // The protocol's false is "only additive updates": an edit overwrites what was there, as a delete removes it.
      destructiveHint: tool.kind === 'edit' || tool.kind === 'delete',
      // A client may retry such a call when its answer is lost (only a create would leave a second record).
      idempotentHint: tool.kind !== 'create',
      openWorldHint: false,
    },
  };
});

/** How a wrong-type message names what a value must be, by zod's `expected`. */
const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  record: 'an object',
};

/** What a JSON value is, as a message names it: its kind for text and structures, else the value itself. */
function describeValue(value: unknown): string {
  if (typeof value === 'string') return 'a string';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}

/**
 * A per-parse error map that says a wrong type in words a model fixes its call by: "expected an integer, got a
 * string" (zod's own says "Invalid input: expected number, received string"). A missing value is left to
 * `issueProblem`, which tells it by the issue's input. Typed by the fields it reads, so that it also serves the
 * SDK's schemas, made with the zod the SDK depends on.
 */
export function wrongTypeMessages(issue: {
  code: string;
  expected?: string;
  input?: unknown;
  inst?: unknown;
}): string | undefined {
  if (issue.code !== 'invalid_type' || issue.expected === undefined || issue.input === undefined)
    return undefined;
  // A number with .int() refuses a string as a number; it takes only integers all the same.
  const integer = issue.inst instanceof z.ZodNumber && issue.inst.isInt;
  const expected = integer ? EXPECTED.int : (EXPECTED[issue.expected] ?? issue.expected);
  return `expected ${expected}, got ${describeValue(issue.input)}`;
}

/**
 * One issue of a parse made with `reportInput` as `<at>: <problem>`. Only a missing value's issue lacks the
 * input: without reportInput none has it, and every wrong type would read as missing.
 */
export function issueProblem(issue: { code: string; message: string; input?: unknown }, at: string): string {
  const missing = issue.code === 'invalid_type' && issue.input === undefined;
  return `${at}: ${missing ? 'required' : issue.message}`;
}

/** The most problems a refusal of bad arguments names. */
const MAX_PROBLEMS_NAMED = 10;

/** zod's issues as one sentence a model can fix its call by: each names the argument. */
function argumentProblems(tool: McpTool, issues: z.core.$ZodIssue[]): string {
  const problems = issues.flatMap((issue) => {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      // Tool arguments are flat, so an unknown key sits beside the tool's own arguments.
      const known = Object.keys(tool.input.shape);
      return issue.keys.map((key) => unknownFieldMessage(key, known));
    }
    return issueProblem(issue, at || 'arguments');
  });
  // Enough for a model to fix its call, however many arguments it got wrong.
  const named = problems.slice(0, MAX_PROBLEMS_NAMED).join('; ');
  const more = problems.length - MAX_PROBLEMS_NAMED;
  return more > 0 ? `${named}; and ${more} more like these` : named;
}

/**
 * `args` without the nulls given for optional arguments that take no null of their own: such a null is as if the
 * argument were absent, as for the dates. A model that fills every argument sends null for those it leaves open
 * (strict function calling makes every argument required and the optional ones nullable). A null that means
 * something (an edit's no change, due_at's removal) and one for a required argument are left to the schema.
 */
function withoutOpenNulls(tool: McpTool, args: object): object {
  const shape = tool.input.shape as Record<string, z.ZodType>;
  return Object.fromEntries(
    Object.entries(args).filter(
      ([name, value]) =>
        value !== null ||
        !Object.hasOwn(shape, name) ||
        shape[name].safeParse(null).success ||
        !shape[name].safeParse(undefined).success,
    ),
  );
}

/** Runs tool `name` for the caller holding `scopes`; whatever happens, a tool result. */
export async function callTool(
  name: string,
  args: unknown,
  context: ToolContext,
  scopes: readonly Scope[],
  log: FastifyBaseLogger,
): Promise<ToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  // Names the caller sent (a tool's, an argument's) are repeated cut short: a refusal is read by a model too.
  if (!tool)
    return refusal(
      'invalid_arguments',
      `Unknown tool ${quoted(name)}; tools: ${[...TOOLS_BY_NAME.keys()].join(', ')}`,
    );
  // As on the REST routes, the scope is checked before the arguments.
  if (!scopes.includes(tool.scope))
    return refusal('authorization_denied', `Insufficient permissions. Required scope: ${tool.scope}`);
  // Arguments of null are none, as absent ones are; of another type than an object, a refusal (the SDK's server
  // would answer them with a protocol error): so alike whether the call came alone or in a batch.
  const given = args ?? {};
  if (typeof given !== 'object' || Array.isArray(given))
    return refusal('invalid_arguments', 'arguments must be an object');
  const unstorable = textIssue(given);
  if (unstorable)
    return refusal(
      'invalid_arguments',
      `${unstorable.path.map((key) => shortName(String(key))).join('.') || 'arguments'}: ${unstorable.msg}`,
    );
  const parsed = tool.input.safeParse(withoutOpenNulls(tool, given), {
    reportInput: true,
    error: wrongTypeMessages,
  });
  if (!parsed.success) return refusal('invalid_arguments', argumentProblems(tool, parsed.error.issues));
  try {
    return toolAnswer(await tool.run(context, parsed.data as never));
  } catch (error) {
    if (error instanceof NotFound) return refusal('not_found', error.message);
    if (error instanceof Conflict || error instanceof UnprocessableError)
      return refusal('invalid_arguments', error.message);
    if (isUnavailable(error)) return databaseUnavailable(error, log);
    log.error({ err: error, tool: name }, 'MCP tool failed');
    return refusal('internal', 'The server failed to run this tool');
  }
}
