import type { INodeProperties } from 'n8n-workflow';

// The parameters of the Search operations, worded for a person and for a model using the node as a tool.

/** The search text of a Search operation over `records`, matched against `fields`. */
export function searchQueryField(records: string, fields: string, placeholder: string): INodeProperties {
  return {
    displayName: 'Search Text',
    name: 'query',
    type: 'string',
    required: true,
    default: '',
    placeholder,
    description: `Words to find in the ${records}' ${fields}. Finds those with every word, in any form (meeting finds meetings), or when none has them all, those with any; put a phrase in double quotes to match it word for word. Most relevant first; when many match, the most recent are ranked, so a filter reaches older ones.`,
  };
}

/** How many results a Search operation returns (`records` names them in the hint). */
export function searchLimitField(records: string): INodeProperties {
  return {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: 100 },
    default: 50,
    description: 'Max number of results to return',
    hint: `The most relevant ${records} (at most 100)`,
  };
}
