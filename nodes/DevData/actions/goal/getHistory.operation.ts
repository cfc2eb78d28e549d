import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { addressedRecord, recordLocator } from '../crud';
import { goalRecord } from './fields';

const properties: INodeProperties[] = [
  recordLocator(goalRecord),
  {
    displayName: 'Days',
    name: 'days',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: 365 },
    default: 30,
    description: 'How many UTC days back from today to return (1–365)',
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['getHistory'] } },
  properties,
);

interface HistoryEntry extends IDataObject {
  date: string;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const days = this.getNodeParameter('days', itemIndex, 30) as number;
  const request = addressedRecord.call(this, goalRecord, itemIndex, '/history');
  const history = (await devDataRequest.call(this, { method: 'GET', ...request, qs: { days } })) as
    IDataObject | HistoryEntry[];
  // A server that implements only the real service's goals answers a bare list, newest day first: the node puts
  // out the same one item either way, its days oldest first.
  if (!Array.isArray(history)) return history;
  return {
    goal_id: request.id,
    days,
    history: [...history].sort((a, b) => a.date.localeCompare(b.date)),
  };
}
