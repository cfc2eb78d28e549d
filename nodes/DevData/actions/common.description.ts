import type { INodeProperties } from 'n8n-workflow';

/** Return All + Limit for a Get Many operation; the node reads as many pages as the limit needs. */
export function returnAllOrLimit(limitHint?: string): INodeProperties[] {
  return [
    {
      displayName: 'Return All',
      name: 'returnAll',
      type: 'boolean',
      default: false,
      description: 'Whether to return all results or only up to a given limit',
    },
    {
      displayName: 'Limit',
      name: 'limit',
      type: 'number',
      typeOptions: { minValue: 1 },
      default: 50,
      description: 'Max number of results to return',
      ...(limitHint === undefined ? {} : { hint: limitHint }),
      displayOptions: { show: { returnAll: [false] } },
    },
  ];
}

/**
 * The record an operation addresses: picked from a searchable list of the user's records, or given by ID (typed,
 * or mapped with an expression). Read it with `getNodeParameter(name, i, '', { extractValue: true })`.
 */
export function recordId(name: string, record: string, searchListMethod: string): INodeProperties {
  const noun = record.toLowerCase();
  return {
    displayName: record,
    name,
    type: 'resourceLocator',
    required: true,
    default: { mode: 'list', value: '' },
    description: `The ${noun} to work with`,
    modes: [
      {
        displayName: 'From List',
        name: 'list',
        type: 'list',
        placeholder: `Select a ${noun}...`,
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
