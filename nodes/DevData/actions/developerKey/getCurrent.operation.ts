import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';

export const description: INodeProperties[] = [];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  return (await devDataRequest.call(this, { method: 'GET', path: '/v1/dev/key', itemIndex })) as IDataObject;
}
