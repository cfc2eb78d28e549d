import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { addressedRecord, recordLocator } from '../crud';
import { developerKeyRecord } from './fields';

const properties: INodeProperties[] = [recordLocator(developerKeyRecord)];

export const description = updateDisplayOptions(
  { show: { resource: ['developerKey'], operation: ['delete'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<{ success: true }> {
  // The server answers 204 with no body; the output says the same as the other resources' deletes.
  await devDataRequest.call(this, {
    method: 'DELETE',
    ...addressedRecord.call(this, developerKeyRecord, itemIndex),
  });
  return { success: true };
}
