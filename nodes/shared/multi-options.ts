import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * The values of a multi-select parameter. The editor gives an array; an expression may give one value as text, or
 * several separated by commas ("manual, work"), which are read the same way. Anything else (a number, an object)
 * fails the item, naming the field as the user sees it.
 */
export function multiOptionValues(
  node: INode,
  value: unknown,
  displayName: string,
  itemIndex?: number,
): string[] {
  if (value === undefined || value === null) return [];
  const parts = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (parts === undefined || parts.some((part) => typeof part !== 'string')) {
    const where = itemIndex === undefined ? '' : ` (input item ${itemIndex})`;
    throw new NodeOperationError(
      node,
      `${displayName} must be a list of values or a comma-separated text${where}, not ${JSON.stringify(value)}`,
      {
        itemIndex,
        description: `Choose the values from the list, or give an expression that evaluates to an array of them or to text such as "a, b".`,
      },
    );
  }
  return (parts as string[]).map((part) => part.trim()).filter((part) => part !== '');
}
