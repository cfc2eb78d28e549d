import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { createManyOperation } from '../batch';
import { additionalFields } from '../common.description';
import { toUtcIso } from '../dates';
import { toWireFields } from '../utils';

/** The server's largest screen-activity batch. */
export const MAX_BATCH = 1000;

function newScreenActivity(this: IExecuteFunctions, itemIndex: number): IDataObject {
  return {
    timestamp: toUtcIso.call(
      this,
      this.getNodeParameter(timestampField.name, itemIndex),
      timestampField.displayName,
      itemIndex,
    ),
    app_name: this.getNodeParameter('appName', itemIndex) as string,
    ...toWireFields.call(
      this,
      this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject,
      itemIndex,
    ),
  };
}

/** When the screen showed the record. */
const timestampField: INodeProperties = {
  displayName: 'Timestamp',
  name: 'timestamp',
  type: 'dateTime',
  required: true,
  default: '',
  description: "When the screen showed this; without an offset it is read in the workflow's timezone",
};

export const { description, executeBatch } = createManyOperation(
  'screenActivity',
  'screen activity record',
  [
    timestampField,
    {
      displayName: 'App Name',
      name: 'appName',
      type: 'string',
      required: true,
      default: '',
      placeholder: 'e.g. Visual Studio Code',
      description: 'The app in front (1–200 characters)',
    },
    additionalFields([
      {
        displayName: 'OCR Text',
        name: 'ocrText',
        type: 'string',
        typeOptions: { rows: 3 },
        default: '',
        description: 'Text read off the screen (up to 1000 characters)',
      },
      {
        displayName: 'Window Title',
        name: 'windowTitle',
        type: 'string',
        default: '',
        description: 'The title of the window in front (up to 1000 characters)',
      },
    ]),
  ],
  {
    path: '/v1/dev/user/screen-activity',
    key: 'screen_activity',
    maxPerRequest: MAX_BATCH,
    toEntry: newScreenActivity,
    answersCount: true,
  },
);
