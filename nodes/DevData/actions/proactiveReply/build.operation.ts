import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { itemMessage, listValues } from '../../../shared';

/** The template variables DevData fills, each from the scope of the same name. */
export const PROACTIVE_VARIABLES = ['user_name', 'user_facts', 'user_context', 'user_chat'] as const;
export type ProactiveVariable = (typeof PROACTIVE_VARIABLES)[number];

/** DevData drops a reply whose prompt is shorter than this. */
export const MIN_PROMPT_LENGTH = 5;
/** DevData sends no prompt longer than this (in characters) to its model, as the real service does. */
export const MAX_PROMPT_LENGTH = 128_000;

/** DevData pushes a reply's message only when it is longer than this many characters. */
export const MESSAGE_MIN_EXCLUSIVE = 5;

/** What Context to Add appends for each variable the prompt does not use yet, in this order. */
const CONTEXT_BLOCKS: Record<ProactiveVariable, string> = {
  user_name: "The user's name: {{user_name}}",
  user_facts: 'What you know about the user:\n{{user_facts}}',
  user_context: "The user's recent conversations:\n{{user_context}}",
  user_chat: 'Your recent messages to the user:\n{{user_chat}}',
};

/** `{{ name }}`: DevData's placeholder. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
/**
 * A placeholder in an expression prompt: `{{ name }}` with a bare name, which n8n would evaluate as an undefined
 * variable and silently leave empty. Set aside, DevData's variables reach DevData and a misspelt one is reported.
 */
const NAME_PLACEHOLDER = /\{\{\s*((?!(?:true|false|null|undefined|NaN|Infinity)\s*\}\})[A-Za-z_]\w*)\s*\}\}/g;
/** What a variable's placeholder stands in as while n8n evaluates the rest of an expression prompt. */
const setAside = (name: string) => `\uE000devdata:${name}\uE001`;
const SET_ASIDE = /\uE000devdata:(\w+)\uE001/g;

const VARIABLE_LIST = PROACTIVE_VARIABLES.map((name) => `{{${name}}}`).join(', ');

/** The session the reply answers. */
const sessionIdField: INodeProperties = {
  displayName: 'Session ID',
  name: 'sessionId',
  type: 'string',
  required: true,
  default: '={{ $json.session_id }}',
  description: 'The session the reply answers: the session_id the DevData Transcript Trigger put out',
};

/** The user data DevData adds to the prompt. */
const contextToAddField: INodeProperties = {
  displayName: 'Context to Add',
  name: 'contextToAdd',
  type: 'multiOptions',
  options: [
    {
      name: 'User Chat',
      value: 'user_chat',
      description: 'The last messages between the user and this app ({{user_chat}})',
    },
    {
      name: 'User Context',
      value: 'user_context',
      description: "Titles and overviews of the user's recent conversations ({{user_context}})",
    },
    {
      name: 'User Facts',
      value: 'user_facts',
      description: 'What DevData knows about the user: their memories ({{user_facts}})',
    },
    {
      name: 'User Name',
      value: 'user_name',
      description: "The user's display name ({{user_name}})",
    },
  ],
  default: [],
  description:
    'User data to give DevData along with the prompt. The node appends each one, labelled, after n8n has evaluated the prompt — so this works in fixed and expression prompts alike. Data the prompt already places with a placeholder is not added twice. Each one used, here or as a placeholder, must be declared by the app and granted by the user under the scope of the same name, or DevData pushes nothing.',
  displayOptions: { show: { replyWith: ['prompt'] } },
};

const properties: INodeProperties[] = [
  {
    displayName:
      "DevData fills {{user_name}}, {{user_facts}}, {{user_context}} and {{user_chat}} with the user's data. Write them as they are, in a fixed prompt or in an expression next to {{ $json.transcript }}: the node keeps them for DevData, though n8n's expression preview shows them as [undefined].",
    name: 'templateNotice',
    type: 'notice',
    default: '',
  },
  sessionIdField,
  {
    displayName: 'Reply With',
    name: 'replyWith',
    type: 'options',
    noDataExpression: true,
    options: [
      {
        name: 'Prompt',
        value: 'prompt',
        description:
          "DevData fills the prompt with the user's data, generates the notification from it and pushes it (at most one every 30 seconds)",
      },
      {
        name: 'Exact Message',
        value: 'message',
        description: 'DevData pushes this text as it is, at once: no template, no model, no 30 s window',
      },
    ],
    default: 'prompt',
    description: 'What DevData pushes to the user',
  },
  {
    displayName: 'Message',
    name: 'message',
    type: 'string',
    typeOptions: { rows: 3 },
    required: true,
    default: '',
    placeholder: 'Time for a short break?',
    description:
      "The notification text, pushed as it is (6 characters or more). DevData fills no placeholder here: for the user's data, reply with a prompt.",
    displayOptions: { show: { replyWith: ['message'] } },
  },
  {
    displayName: 'Prompt',
    name: 'prompt',
    type: 'string',
    typeOptions: { rows: 6 },
    required: true,
    default: '',
    placeholder: 'Write {{user_name}} one friendly sentence about what they just said',
    description:
      "What DevData generates the notification from (5 to 128,000 characters). DevData's placeholders {{user_name}}, {{user_facts}}, {{user_context}} and {{user_chat}} are written the same way in a fixed prompt and in an expression: n8n evaluates every other expression in it (the transcript from the trigger, say) and leaves these to DevData, which fills each one the app declared and the user granted (any other: nothing is pushed). Or leave them out and use Context to Add.",
    displayOptions: { show: { replyWith: ['prompt'] } },
  },
  contextToAddField,
];

export const description = updateDisplayOptions(
  { show: { resource: ['proactiveReply'], operation: ['build'] } },
  properties,
);

function isVariable(name: string): name is ProactiveVariable {
  return (PROACTIVE_VARIABLES as readonly string[]).includes(name);
}

/** The placeholders of a prompt, each once, in order of first use. */
function placeholdersOf(prompt: string): string[] {
  return [...new Set(Array.from(prompt.matchAll(PLACEHOLDER), (match) => match[1]))];
}

/**
 * The Prompt parameter as n8n evaluated it, with DevData's placeholders kept: in an expression they are set aside
 * while n8n evaluates the rest, since n8n would evaluate `{{user_name}}` as code.
 */
function writtenPrompt(this: IExecuteFunctions, itemIndex: number): string {
  const source = this.getNodeParameter('prompt', itemIndex, '', { rawExpressions: true });
  const prompt =
    typeof source === 'string' && source.startsWith('=')
      ? this.evaluateExpression(
          source.slice(1).replace(NAME_PLACEHOLDER, (_, name: string) => setAside(name)),
          itemIndex,
        )
      : (this.getNodeParameter('prompt', itemIndex, '') as unknown);
  if (prompt === undefined || prompt === null) return '';
  const text = typeof prompt === 'object' ? JSON.stringify(prompt) : String(prompt);
  return text.replace(SET_ASIDE, (_, name: string) => `{{${name}}}`);
}

/** DevData's variables written in `text` as `{{ name }}`, each once, in order. */
function variablesIn(text: string): ProactiveVariable[] {
  return [...new Set(Array.from(text.matchAll(NAME_PLACEHOLDER), (match) => match[1]).filter(isVariable))];
}

/** `{session_id, message}`: the text DevData pushes as it is. */
function messageReply(this: IExecuteFunctions, sessionId: string, itemIndex: number): IDataObject {
  const message = String(this.getNodeParameter('message', itemIndex, '') ?? '');
  // DevData fills no placeholder in a message: as written it reaches the user in braces, and in an expression n8n
  // makes it empty. Looked for in what was written and in what an expression gave.
  const source = this.getNodeParameter('message', itemIndex, '', { rawExpressions: true });
  const placed = [
    ...new Set([...variablesIn(typeof source === 'string' ? source : ''), ...variablesIn(message)]),
  ];
  if (placed.length > 0) {
    const names = placed.map((name) => `{{${name}}}`).join(', ');
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(`The message uses ${names}, which DevData fills only in a prompt`, itemIndex),
      {
        itemIndex,
        description:
          "Reply With Exact Message pushes the text as it is. Set Reply With to Prompt to have DevData fill the user's data in and generate the notification, or write the message without the placeholder.",
      },
    );
  }
  const length = [...message].length;
  if (length <= MESSAGE_MIN_EXCLUSIVE) {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(
        `The message is too short: ${length} characters, DevData pushes one of ${MESSAGE_MIN_EXCLUSIVE + 1} or more`,
        itemIndex,
      ),
      {
        itemIndex,
        description: `DevData pushes nothing for a reply whose message has ${MESSAGE_MIN_EXCLUSIVE} characters or fewer. If the message is an expression, check what it evaluates to for this item.`,
      },
    );
  }
  return { session_id: sessionId, message };
}

/**
 * The reply a DevData Transcript Trigger answers with: `{session_id, notification: {prompt, params}}`, where params are
 * the variables the finished prompt uses, or with Reply With Exact Message `{session_id, message}`.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const sessionId = String(this.getNodeParameter(sessionIdField.name, itemIndex, '') ?? '').trim();
  if (!sessionId) {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(`The ${sessionIdField.displayName} is empty`, itemIndex),
      {
        itemIndex,
        description:
          'Set Session ID to the session_id of the DevData Transcript Trigger call this reply answers, e.g. {{ $json.session_id }} right after the trigger, or {{ $("DevData Transcript Trigger").item.json.session_id }} further on.',
      },
    );
  }

  if (this.getNodeParameter('replyWith', itemIndex, 'prompt') === 'message') {
    return messageReply.call(this, sessionId, itemIndex);
  }

  // Each of DevData's placeholders as `{{name}}`, however spaced: a DevData service that fills only that form (the
  // real service this one is modelled on does) would leave `{{ user_facts }}` to the model as written.
  let prompt = writtenPrompt
    .call(this, itemIndex)
    .replace(PLACEHOLDER, (match, name: string) => (isVariable(name) ? `{{${name}}}` : match));
  // In characters (code points), as DevData counts them: an emoji is one, as in a message.
  const length = [...prompt.trim()].length;
  if (length < MIN_PROMPT_LENGTH) {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(
        `The prompt is too short: ${length} characters, DevData needs at least ${MIN_PROMPT_LENGTH}`,
        itemIndex,
      ),
      {
        itemIndex,
        description: `DevData drops a notification whose prompt is shorter than ${MIN_PROMPT_LENGTH} characters. If the prompt is an expression, check what it evaluates to for this item.`,
      },
    );
  }

  const unknown = placeholdersOf(prompt).filter((name) => !isVariable(name));
  if (unknown.length > 0) {
    const names = unknown.map((name) => `{{${name}}}`).join(', ');
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(`Unknown variable ${names} in the prompt`, itemIndex),
      {
        itemIndex,
        description: `DevData fills only ${VARIABLE_LIST}; any other {{…}} would reach the user as it is. Fix the name, or remove the braces.`,
      },
    );
  }

  const used = new Set(placeholdersOf(prompt));
  const selected = listValues(
    this.getNode(),
    this.getNodeParameter(contextToAddField.name, itemIndex, []),
    contextToAddField.displayName,
    itemIndex,
  );
  const wrong = selected.filter((name) => !isVariable(name));
  if (wrong.length > 0) {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(`Unknown context "${wrong.join('", "')}" in ${contextToAddField.displayName}`, itemIndex),
      { itemIndex, description: `${contextToAddField.displayName} takes ${PROACTIVE_VARIABLES.join(', ')}.` },
    );
  }
  const blocks = PROACTIVE_VARIABLES.filter((name) => selected.includes(name) && !used.has(name)).map(
    (name) => CONTEXT_BLOCKS[name],
  );
  if (blocks.length > 0) prompt = `${prompt.trimEnd()}\n\n${blocks.join('\n\n')}`;
  const finished = [...prompt].length;
  if (finished > MAX_PROMPT_LENGTH) {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(
        `The prompt is too long: ${finished} characters, DevData takes at most ${MAX_PROMPT_LENGTH}`,
        itemIndex,
      ),
      {
        itemIndex,
        description: `DevData drops a notification whose prompt is longer than ${MAX_PROMPT_LENGTH} characters. If the prompt is an expression, check what it evaluates to for this item.`,
      },
    );
  }

  return { session_id: sessionId, notification: { prompt, params: placeholdersOf(prompt) } };
}
