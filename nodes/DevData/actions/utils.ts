import type {
  IDataObject,
  IExecuteFunctions,
  INodeExecutionData,
  INodeProperties,
  INodePropertyOptions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { itemMessage, listValues } from '../../shared';
import { CLEAR_FIELDS, limitField, returnAllField, UPDATE_FIELDS } from './common.description';
import { toDueInstant, toUtcIso } from './dates';

/** `dueAt` → `due_at`: a parameter's name is its wire field in camelCase. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A date-time field of a collection: its definition (errors name it by its display name) and what it holds. */
export interface DateField {
  property: INodeProperties;
  /** A due date reads a date alone as the end of that UTC day; any other date-time as 00:00 in the workflow's timezone. */
  due?: boolean;
}

/**
 * A number parameter's value as a number. An expression may give one as text ("5", from a spreadsheet, say),
 * which the server would refuse; text that is not a number fails the item, naming the field as the user sees it.
 */
export function toNumber(
  this: IExecuteFunctions,
  value: IDataObject[string],
  displayName: string,
  itemIndex: number,
): IDataObject[string] {
  if (typeof value !== 'string') return value;
  const number = value.trim() === '' ? NaN : Number(value);
  if (!Number.isFinite(number)) {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(`${displayName} must be a number, not "${value}"`, itemIndex),
      {
        itemIndex,
        description: 'If it comes from an expression, check what it evaluates to for this item.',
      },
    );
  }
  return number;
}

/**
 * A boolean parameter's value as a boolean. An expression may give one as text ("true", from a spreadsheet or a
 * webhook's query), which a check for `true` would read as off and the server refuses; other text fails the item,
 * naming the field as the user sees it. Undefined (a field left out) stays undefined.
 */
export function toBoolean(
  this: IExecuteFunctions,
  value: unknown,
  displayName: string,
  itemIndex: number,
): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  if (text === 'true' || text === 'false') return text === 'true';
  throw new NodeOperationError(
    this.getNode(),
    itemMessage(`${displayName} must be true or false, not ${JSON.stringify(value)}`, itemIndex),
    {
      itemIndex,
      description: 'If it comes from an expression, check what it evaluates to for this item.',
    },
  );
}

/** A boolean parameter of the operation (Return All, Simplify), its default when not set, read as toBoolean does. */
export function booleanParameter(
  this: IExecuteFunctions,
  property: Pick<INodeProperties, 'name' | 'displayName' | 'default'>,
  itemIndex: number,
): boolean {
  const value = this.getNodeParameter(property.name, itemIndex, property.default) as unknown;
  return toBoolean.call(this, value, property.displayName, itemIndex) ?? false;
}

/**
 * The wire body for the fields of a collection the user set: keys in snake_case, date-time fields converted to
 * ISO 8601 UTC, the fields among `properties` that are numbers or booleans as such, and nothing for fields left out. A
 * field whose expression gives null (an input field that holds nothing) counts as left out, as in Update, and so
 * does an empty date-time ('' too), as in n8n's own nodes: sent, null was refused for a text field (one such item
 * failed a whole Create Many batch) where leaving it out gives the server's default.
 */
export function toWireFields(
  this: IExecuteFunctions,
  fields: IDataObject,
  itemIndex: number,
  dateFields: DateField[] = [],
  properties: INodeProperties[] = [],
): IDataObject {
  const body: IDataObject = {};
  for (const [name, value] of Object.entries(fields)) {
    const date = dateFields.find((field) => field.property.name === name);
    if (value === undefined || value === null || (date && isEmptyDate(value))) continue;
    const property = properties.find((candidate) => candidate.name === name);
    if (property?.type === 'number')
      body[snakeCase(name)] = toNumber.call(this, value, property.displayName, itemIndex);
    else if (property?.type === 'boolean')
      body[snakeCase(name)] = toBoolean.call(this, value, property.displayName, itemIndex);
    else if (!date) body[snakeCase(name)] = value;
    else {
      const convert = date.due ? toDueInstant : toUtcIso;
      body[snakeCase(name)] = convert.call(this, value, date.property.displayName, itemIndex);
    }
  }
  return body;
}

/**
 * Sets each field chosen under Clear Fields (`clearField`, a clearFieldsOption) to null in `body`, the wire body of
 * the other Update Fields. Fails the item, naming fields as the user sees them, when a field is both given a value
 * and cleared, or when an expression puts in Clear Fields a name that is none of its options: sent as null, a field
 * that cannot be cleared (a goal's Title) would change nothing while the item succeeded.
 */
export function clearedFields(
  this: IExecuteFunctions,
  body: IDataObject,
  clearFields: unknown,
  clearField: INodeProperties,
  itemIndex: number,
): IDataObject {
  const cleared = { ...body };
  const options = (clearField.options ?? []) as INodePropertyOptions[];
  for (const name of listValues(this.getNode(), clearFields, CLEAR_FIELDS.displayName, itemIndex)) {
    const option = options.find((candidate) => candidate.value === name);
    if (option === undefined) {
      throw new NodeOperationError(
        this.getNode(),
        itemMessage(`"${CLEAR_FIELDS.displayName}" cannot hold "${name}"`, itemIndex),
        {
          itemIndex,
          description: `It takes these fields: ${options.map((o) => `${String(o.value)} (${o.name})`).join(', ')}. If it comes from an expression, check what it evaluates to for this item.`,
        },
      );
    }
    if (cleared[snakeCase(name)] !== undefined) {
      throw new NodeOperationError(
        this.getNode(),
        itemMessage(
          `Set either "${option.name}" or clear it under "${CLEAR_FIELDS.displayName}", not both`,
          itemIndex,
        ),
        { itemIndex },
      );
    }
    cleared[snakeCase(name)] = null;
  }
  return cleared;
}

/**
 * `fields` without those of `names` that hold an empty string: an ID or name the user added but left empty, or an
 * expression that maps a missing value to '', counts as left out (the server refuses an empty one).
 */
export function withoutEmpty(fields: IDataObject, names: string[]): IDataObject {
  return Object.fromEntries(
    Object.entries(fields).filter(([name, value]) => !(names.includes(name) && value === '')),
  );
}

/** A date-time parameter with nothing in it. */
function isEmptyDate(value: unknown): boolean {
  return value === '' || value === null;
}

/** Fails the item when both a value and its "clear" switch are set, naming both as the user sees them. */
export function assertNotBoth(
  this: IExecuteFunctions,
  fields: IDataObject,
  value: INodeProperties,
  clear: INodeProperties,
  itemIndex: number,
): void {
  const set = fields[value.name];
  if (set !== undefined && !isEmptyDate(set) && fields[clear.name] === true) {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(`Set either "${value.displayName}" or "${clear.displayName}", not both`, itemIndex),
      { itemIndex },
    );
  }
}

/**
 * The fields added under Update Fields that hold a value. One whose expression gives nothing (a missing value, or
 * null) counts as not added: the server takes null as not given, so sent, it would change nothing while the item
 * succeeded, where an update left without changes fails (see changesOf).
 */
export function updateFieldsOf(this: IExecuteFunctions, itemIndex: number): IDataObject {
  const fields = this.getNodeParameter(UPDATE_FIELDS.name, itemIndex, {}) as IDataObject;
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== null),
  );
}

/**
 * `body`, the changes of an Update, when it holds at least one: with none (no field added, or only switches left
 * off) the item fails before anything is sent, rather than sending a request that changes nothing.
 */
export function changesOf(this: IExecuteFunctions, body: IDataObject, itemIndex: number): IDataObject {
  if (Object.keys(body).length === 0) {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(`Nothing to update: add at least one field under ${UPDATE_FIELDS.displayName}`, itemIndex),
      { itemIndex },
    );
  }
  return body;
}

/** Reads the Limit parameter (see countOf), or undefined when Return All is on. */
export function limitOf(this: IExecuteFunctions, itemIndex: number): number | undefined {
  if (booleanParameter.call(this, returnAllField, itemIndex)) return undefined;
  return countOf.call(this, limitField, itemIndex, ', or turn on Return All');
}

/**
 * Reads a how-many parameter such as a Limit. An expression may give it as text ("25"); one that gives no whole
 * number of at least 1 (nothing included) fails the item, rather than returning nothing, all but the last records,
 * or the server's default count. `otherwise` ends the advice.
 */
export function countOf(
  this: IExecuteFunctions,
  field: INodeProperties,
  itemIndex: number,
  otherwise = '',
): number {
  const value = this.getNodeParameter(field.name, itemIndex, field.default) as unknown;
  const count = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(
        `${field.displayName} must be a whole number of at least 1, not ${JSON.stringify(value)}`,
        itemIndex,
      ),
      {
        itemIndex,
        description: `If it comes from an expression, check what it evaluates to for this item${otherwise}.`,
      },
    );
  }
  return count;
}

/**
 * The error item Continue On Fail puts out for an input item: the message as `error`, and the description (the
 * server's detail, the refused fields named as the user sees them) as `details`, which n8n's error output
 * recognises beside `error` and `message` (any other key would keep the item on the success output).
 */
export function errorItem(error: Error, itemIndex: number): INodeExecutionData {
  const description = (error as { description?: unknown }).description;
  return {
    json: {
      error: error.message,
      ...(typeof description === 'string' && description ? { details: description } : {}),
    },
    pairedItem: { item: itemIndex },
  };
}
