import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import * as actionItem from './actionItem/ActionItem.resource';
import * as conversation from './conversation/Conversation.resource';
import * as developerKey from './developerKey/DeveloperKey.resource';
import * as folder from './folder/Folder.resource';
import * as goal from './goal/Goal.resource';
import * as liveTranscript from './liveTranscript/LiveTranscript.resource';
import * as memory from './memory/Memory.resource';
import * as notification from './notification/Notification.resource';
import * as person from './person/Person.resource';
import * as proactiveReply from './proactiveReply/ProactiveReply.resource';
import * as screenActivity from './screenActivity/ScreenActivity.resource';
import type { ItemOperation, Operation, OperationMap } from './types';
import { errorItem, snakeCase } from './utils';

/** What each resource's Operation dropdown runs. */
export const operations: OperationMap = {
  actionItem: {
    create: actionItem.create,
    createMany: actionItem.createMany,
    delete: actionItem.delete,
    getAll: actionItem.getAll,
    update: actionItem.update,
  },
  conversation: {
    createFromSegments: conversation.createFromSegments,
    createFromText: conversation.createFromText,
    delete: conversation.delete,
    get: conversation.get,
    getAll: conversation.getAll,
    search: conversation.search,
    update: conversation.update,
  },
  developerKey: {
    create: developerKey.create,
    delete: developerKey.delete,
    getAll: developerKey.getAll,
    getCurrent: developerKey.getCurrent,
  },
  folder: {
    create: folder.create,
    delete: folder.delete,
    getAll: folder.getAll,
    update: folder.update,
  },
  goal: {
    create: goal.create,
    delete: goal.delete,
    get: goal.get,
    getAll: goal.getAll,
    getHistory: goal.getHistory,
    update: goal.update,
    updateProgress: goal.updateProgress,
  },
  liveTranscript: { addSegments: liveTranscript.addSegments, finish: liveTranscript.finish },
  memory: {
    create: memory.create,
    createMany: memory.createMany,
    delete: memory.delete,
    getAll: memory.getAll,
    search: memory.search,
    update: memory.update,
  },
  notification: { getAll: notification.getAll, send: notification.send },
  person: {
    create: person.create,
    delete: person.delete,
    getAll: person.getAll,
    update: person.update,
  },
  proactiveReply: { build: proactiveReply.build },
  screenActivity: { createMany: screenActivity.createMany, getAll: screenActivity.getAll },
};

/** The operation the parameters name, or undefined when the resource has no such operation. */
function operationOf(resource: string, operation: string): Operation | undefined {
  const byName: Record<string, Operation> | undefined = Object.hasOwn(operations, resource)
    ? operations[resource as keyof OperationMap]
    : undefined;
  return byName && Object.hasOwn(byName, operation) ? byName[operation] : undefined;
}

/**
 * The parameters of `properties` and those nested in their collections and fixed collections, each with the name of
 * the parameter it is nested in (a fixed collection's values: the fixed collection, not its option group).
 */
function allParameters(
  properties: INodeProperties[],
  parent?: string,
  depth = 0,
): Array<{ property: INodeProperties; parent?: string; depth: number }> {
  return properties.flatMap((property) => {
    const nested = (property.options ?? []).flatMap((option) =>
      property.type === 'collection'
        ? [option as INodeProperties]
        : property.type === 'fixedCollection'
          ? ((option as { values?: INodeProperties[] }).values ?? [])
          : [],
    );
    return [{ property, parent, depth }, ...allParameters(nested, property.name, depth + 1)];
  });
}

/**
 * A 422 names each field the server refused by its wire path (`body.action_items[3].due_at`); its description
 * now also names the parameters of the operation they come from as the user sees them ("Due At"). A field is
 * looked up with the name before it first (`transcript_segments.start`: a segment's Start, not an event's), then
 * alone.
 */
function withFieldNames(error: unknown, properties: INodeProperties[]): unknown {
  if (!(error instanceof NodeApiError) || error.httpCode !== '422') return error;
  const issues = (error.errorResponse as { detail?: unknown } | undefined)?.detail;
  if (!Array.isArray(issues)) return error;
  const labels = new Map<string, string>();
  // Alone, a name is the least nested parameter's (an option's Title, not an event's in a list of events).
  const parameters = allParameters(properties).sort((a, b) => b.depth - a.depth);
  for (const { property, parent } of parameters) {
    const field = snakeCase(property.name);
    if (parent !== undefined) labels.set(`${snakeCase(parent)}.${field}`, property.displayName);
    labels.set(field, property.displayName);
  }
  const named = new Set<string>();
  for (const issue of issues as Array<{ loc?: unknown }>) {
    // `["body", "action_items", 3, "due_at"]` → due_at, after action_items.
    const names = Array.isArray(issue.loc)
      ? issue.loc.filter((part): part is string => typeof part === 'string')
      : [];
    const field = names.at(-1);
    if (field === undefined) continue;
    const label = labels.get(`${names.at(-2)}.${field}`) ?? labels.get(field);
    if (label !== undefined) named.add(`${label} (${field})`);
  }
  if (named.size > 0)
    error.description = `In this node: ${[...named].join(', ')}. ${error.description ?? ''}`.trim();
  return error;
}

/**
 * Runs the chosen operation. Create Many takes every input item at once (so it can batch); every other
 * operation runs once per input item, its results paired with that item. With Continue On Fail (or the
 * error output), a failing item yields `{error}` paired with it and the next item runs.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const items = this.getInputData();
  const resource = this.getNodeParameter('resource', 0) as string;
  const operation = this.getNodeParameter('operation', 0) as string;
  const op = operationOf(resource, operation);
  if (!op) {
    throw new NodeOperationError(
      this.getNode(),
      `The operation "${operation}" is not supported for "${resource}"`,
    );
  }
  // A refusal by the server names its fields as this operation's parameters too.
  const named = (error: unknown) => withFieldNames(error, op.description);
  const nameFields = (error: unknown): never => {
    throw named(error);
  };
  if ('executeBatch' in op) return [await op.executeBatch.call(this, items, named).catch(nameFields)];

  const returnData: INodeExecutionData[] = [];
  const run = async (itemIndex: number) => {
    const result = await (op as ItemOperation).execute.call(this, itemIndex).catch(nameFields);
    returnData.push(
      ...this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(result), {
        itemData: { item: itemIndex },
      }),
    );
  };
  const continueOnFail = this.continueOnFail();
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    if (!continueOnFail) {
      await run(itemIndex);
      continue;
    }
    try {
      await run(itemIndex);
    } catch (error) {
      returnData.push(errorItem(error as Error, itemIndex));
    }
  }
  return [returnData];
}
