import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { additionalFields } from '../common.description';
import { withoutEmpty } from '../utils';
import { folderFields, folderRecord, LEFT_OUT_WHEN_EMPTY, nameField } from './fields';

const properties: INodeProperties[] = [nameField, additionalFields(folderFields)];

export const description = updateDisplayOptions(
  { show: { resource: ['folder'], operation: ['create'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
  return (await devDataRequest.call(this, {
    method: 'POST',
    path: folderRecord.path,
    body: {
      name: this.getNodeParameter('name', itemIndex) as string,
      ...withoutEmpty(additional, LEFT_OUT_WHEN_EMPTY),
    },
    itemIndex,
  })) as IDataObject;
}
