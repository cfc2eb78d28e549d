import type { INodeProperties } from 'n8n-workflow';

/** Return All + Limit for a Get Many operation. */
export function returnAllOrLimit(records: string): INodeProperties[] {
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
      description: `Max number of ${records} to return; the node reads as many pages as it needs`,
      displayOptions: { show: { returnAll: [false] } },
    },
  ];
}

/** The ID of the record an operation addresses. */
export function recordId(name: string, record: string): INodeProperties {
  return {
    displayName: `${record} ID`,
    name,
    type: 'string',
    required: true,
    default: '',
    description: `The ID of the ${record.toLowerCase()}`,
  };
}

/** The fields of a collection in the order n8n lists them: by display name. */
export function byDisplayName(fields: INodeProperties[]): INodeProperties[] {
  return [...fields].sort((a, b) => a.displayName.localeCompare(b.displayName));
}
