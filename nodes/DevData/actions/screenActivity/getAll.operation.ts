import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { cursorPaginate } from '../../../shared';
import { filters, returnAllOrLimit } from '../common.description';
import { dateRangeQuery } from '../dates';
import { limitOf } from '../utils';

/** The server's largest page of screen activity. */
export const PAGE_SIZE = 1000;

const properties: INodeProperties[] = [
  ...returnAllOrLimit(),
  filters([
    {
      displayName: 'App',
      name: 'app',
      type: 'string',
      default: '',
      placeholder: 'e.g. Visual Studio Code',
      description: 'Return only records of this app (exact, case-sensitive name)',
    },
    {
      displayName: 'End Date',
      name: 'endDate',
      type: 'dateTime',
      default: '',
      description: 'Return records up to and including this time (a date alone includes the whole UTC day)',
    },
    {
      displayName: 'Start Date',
      name: 'startDate',
      type: 'dateTime',
      default: '',
      description: 'Return records from this time on (a date alone means the start of that UTC day)',
    },
  ]),
];

export const description = updateDisplayOptions(
  { show: { resource: ['screenActivity'], operation: ['getAll'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
  const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
  return await cursorPaginate.call(this, {
    path: '/v1/dev/user/screen-activity',
    key: 'screen_activity',
    qs: {
      app: filters.app,
      ...dateRangeQuery.call(this, filters, ['Start Date', 'End Date'], itemIndex),
    },
    itemIndex,
    pageSize: PAGE_SIZE,
    limit: limitOf.call(this, itemIndex),
  });
}
