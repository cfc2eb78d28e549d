import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { nameField, personRecord } from './fields';

const properties: INodeProperties[] = [nameField];

export const description = updateDisplayOptions(
  { show: { resource: ['person'], operation: ['create'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  return (await devDataRequest.call(this, {
    method: 'POST',
    path: personRecord.path,
    body: { name: this.getNodeParameter('name', itemIndex) as string },
    itemIndex,
  })) as IDataObject;
}
