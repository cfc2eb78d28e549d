import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { toUtcIso } from './dates';

/** `dueAt` → `due_at`: a parameter's name is its wire field in camelCase. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The wire body for the fields of a collection the user set: keys in snake_case, date-time fields (by
 * parameter name) converted to ISO 8601 UTC, and nothing for fields left out. An empty date-time (an expression
 * that maps a missing date to '' or null) counts as left out, as in n8n's own nodes.
 */
export function toWireFields(
  this: IExecuteFunctions,
  fields: IDataObject,
  itemIndex: number,
  dateFields: string[] = [],
): IDataObject {
  const body: IDataObject = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || (dateFields.includes(name) && isEmptyDate(value))) continue;
    body[snakeCase(name)] = dateFields.includes(name) ? toUtcIso.call(this, value, name, itemIndex) : value;
  }
  return body;
}

/** A date-time parameter with nothing in it. */
function isEmptyDate(value: unknown): boolean {
  return value === '' || value === null;
}

/** Splits a comma-separated list parameter, dropping blanks. */
export function splitList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String).filter((v) => v.trim() !== '');
  return String(value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/** Fails the item when both a value and its "clear" switch are set. */
export function assertNotBoth(
  this: IExecuteFunctions,
  fields: IDataObject,
  value: string,
  clear: string,
  itemIndex: number,
): void {
  if (fields[value] !== undefined && !isEmptyDate(fields[value]) && fields[clear] === true) {
    throw new NodeOperationError(this.getNode(), `Set either "${value}" or "${clear}", not both`, {
      itemIndex,
    });
  }
}

/** Reads the Limit parameter, or undefined when Return All is on. */
export function limitOf(this: IExecuteFunctions, itemIndex: number): number | undefined {
  const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
  return returnAll ? undefined : (this.getNodeParameter('limit', itemIndex, 50) as number);
}

/** The error item Continue On Fail puts out for an input item. */
export function errorItem(error: Error, itemIndex: number): INodeExecutionData {
  return { json: { error: error.message }, pairedItem: { item: itemIndex } };
}
