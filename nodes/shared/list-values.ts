import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { itemMessage } from './errors';

export interface ListValuesOptions {
  /**
   * Reads numbers as text (an expression giving [1, 2] as "1", "2"), for a field of free text such as Tags; a
   * field whose values are chosen from a list refuses them.
   */
  numbersAsText?: boolean;
}

/**
 * The values of a list parameter: a multi-select, or a text field that takes several values. The editor gives a
 * multi-select's values as an array; an expression may give one value as text, or several separated by commas
 * ("manual, work"), which are read the same way. Each value is trimmed and blank ones dropped. Anything else (a
 * number, unless `numbersAsText`; an object) fails the item, naming the field as the user sees it.
 */
export function listValues(
  node: INode,
  value: unknown,
  displayName: string,
  itemIndex?: number,
  { numbersAsText = false }: ListValuesOptions = {},
): string[] {
  if (value === undefined || value === null) return [];
  const asText = (part: unknown) =>
    typeof part === 'string' ? part : numbersAsText && typeof part === 'number' ? String(part) : undefined;
  const parts = Array.isArray(value) ? value.map(asText) : asText(value)?.split(',');
  if (parts === undefined || parts.some((part) => part === undefined)) {
    throw new NodeOperationError(
      node,
      itemMessage(
        `${displayName} must be a list of values or a comma-separated text, not ${JSON.stringify(value)}`,
        itemIndex,
      ),
      {
        itemIndex,
        description: `Choose the values from the list, or give an expression that evaluates to an array of them or to text such as "a, b".`,
      },
    );
  }
  return (parts as string[]).map((part) => part.trim()).filter((part) => part !== '');
}
