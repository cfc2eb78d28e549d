import type { INodeProperties } from 'n8n-workflow';

/** The Limit of a Get Many operation, shown while Return All is off (see limitOf). */
export const limitField: INodeProperties = {
  displayName: 'Limit',
  name: 'limit',
  type: 'number',
  typeOptions: { minValue: 1 },
  default: 50,
  description: 'Max number of results to return',
  displayOptions: { show: { returnAll: [false] } },
};

/** The Return All of a Get Many operation (see limitOf). */
export const returnAllField: INodeProperties = {
  displayName: 'Return All',
  name: 'returnAll',
  type: 'boolean',
  default: false,
  description: 'Whether to return all results or only up to a given limit',
};

/**
 * Return All + Limit for a Get Many operation; the node reads as many pages as the limit needs. `hint`, the most
 * the server returns, shows under both: Limit is hidden while Return All is on.
 */
export function returnAllOrLimit(hint?: string): INodeProperties[] {
  if (hint === undefined) return [returnAllField, limitField];
  return [
    { ...returnAllField, hint },
    { ...limitField, hint },
  ];
}

/** A record's Name, required: `description` says what it names and its limits. */
export function requiredName(description: string, placeholder?: string): INodeProperties {
  return {
    displayName: 'Name',
    name: 'name',
    type: 'string',
    required: true,
    default: '',
    ...(placeholder === undefined ? {} : { placeholder }),
    description,
  };
}

/**
 * The record an operation addresses: picked from a searchable list of the user's records, or given by ID (typed,
 * or mapped with an expression). Read it with `getNodeParameter(name, i, '', { extractValue: true })`. Named an ID,
 * and described as one, because an AI agent filling it sees only the name and the description: without them a
 * model passes the record's title. `nameField` is the field a model might mistake for the ID (e.g. `title`).
 */
export function recordId(
  name: string,
  record: string,
  searchListMethod: string,
  nameField?: string,
): INodeProperties {
  const noun = record.toLowerCase();
  const notName = nameField === undefined ? '' : ` (not its ${nameField})`;
  return {
    displayName: `${record} ID`,
    name,
    type: 'resourceLocator',
    required: true,
    default: { mode: 'list', value: '' },
    description: `The ID of the ${noun}${notName}; get it from ${record} → Get Many`,
    modes: [
      {
        displayName: 'From List',
        name: 'list',
        type: 'list',
        placeholder: `Select ${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}...`,
        typeOptions: { searchListMethod, searchable: true },
      },
      {
        displayName: 'By ID',
        name: 'id',
        type: 'string',
        placeholder: 'e.g. 01a1f4f0b5560000dad13f77',
      },
    ],
  };
}

/** The fields of a collection in the order n8n lists them: by display name. */
export function byDisplayName(fields: INodeProperties[]): INodeProperties[] {
  return [...fields].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** A collection of optional parameters, the way every operation of the node words and shows it. */
function collection(
  displayName: string,
  name: string,
  placeholder: string,
  description: string,
  options: INodeProperties[],
): INodeProperties {
  return { displayName, name, type: 'collection', description, placeholder, default: {}, options };
}

/** Additional Fields: the optional fields of a new record. */
export const additionalFields = (options: INodeProperties[]) =>
  collection(
    'Additional Fields',
    'additionalFields',
    'Add Field',
    "Optional fields to set; the server's defaults apply to the others",
    options,
  );

/** The Update Fields collection of an update, and the Clear Fields option inside it: as errors name them. */
export const UPDATE_FIELDS = { displayName: 'Update Fields', name: 'updateFields' } as const;
export const CLEAR_FIELDS = { displayName: 'Clear Fields', name: 'clearFields' } as const;

/** Update Fields: the fields a partial update changes. */
export const updateFields = (options: INodeProperties[]) =>
  collection(
    UPDATE_FIELDS.displayName,
    UPDATE_FIELDS.name,
    'Add Field',
    'Only the fields added here are changed',
    options,
  );

/**
 * Clear Fields, an option of Update Fields: the fields of `fields` named in `clearable`, each of which Update sends
 * as null (see clearedFields).
 */
export function clearFieldsOption(
  fields: INodeProperties[],
  clearable: string[],
  description: string,
): INodeProperties {
  return {
    ...CLEAR_FIELDS,
    type: 'multiOptions',
    options: fields
      .filter((field) => clearable.includes(field.name))
      .map((field) => ({ name: field.displayName, value: field.name })),
    default: [],
    description,
  };
}

/** Filters of a Get Many operation. */
export const filters = (options: INodeProperties[]) =>
  collection('Filters', 'filters', 'Add Filter', 'Conditions the returned records must meet', options);

/** Options: further settings of an operation. */
export const operationOptions = (options: INodeProperties[]) =>
  collection('Options', 'options', 'Add Option', 'Further settings for this operation', options);

/**
 * Simplify, n8n's usual switch between the few fields a workflow or an AI agent needs and the record as the API
 * answers it. On by default: a record read whole (a long transcript above all) can fill a model's context.
 */
export const simplifyField: INodeProperties = {
  displayName: 'Simplify',
  name: 'simplify',
  type: 'boolean',
  default: true,
  description: 'Whether to return a simplified version of the response instead of the raw data',
};
