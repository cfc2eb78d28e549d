import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest, itemMessage, listValues } from '../../../shared';
import { developerKeyRecord, nameField, scopesField } from './fields';

const properties: INodeProperties[] = [
  {
    displayName:
      'The output holds the new key itself (key) once: the server keeps only its hash. Store it where the workflow needs it.',
    name: 'createNotice',
    type: 'notice',
    default: '',
  },
  nameField,
  scopesField,
];

export const description = updateDisplayOptions(
  { show: { resource: ['developerKey'], operation: ['create'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const value: unknown = this.getNodeParameter('name', itemIndex);
  // An expression that gives nothing (a field the item lacks, or null) is empty too: as text, it named the key
  // "undefined" or "null".
  const name = value === undefined || value === null ? '' : String(value);
  if (name.trim() === '') {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(`${nameField.displayName} is empty`, itemIndex),
      {
        itemIndex,
        description: 'Give the new key a name (1–100 characters) so it can be told apart in lists.',
      },
    );
  }
  const scopes = listValues(
    this.getNode(),
    this.getNodeParameter('scopes', itemIndex, []),
    scopesField.displayName,
    itemIndex,
  );
  // No scopes chosen: the server's default, the read scopes of the key this node uses.
  const body: IDataObject = scopes.length > 0 ? { name, scopes } : { name };
  return (await devDataRequest.call(this, {
    method: 'POST',
    path: developerKeyRecord.path,
    body,
    itemIndex,
  })) as IDataObject;
}
