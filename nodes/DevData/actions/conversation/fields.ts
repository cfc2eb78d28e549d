import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { RecordSpec } from '../crud';
import { toWireFields } from '../utils';

export const CATEGORIES = [
  'architecture',
  'business',
  'design',
  'economics',
  'education',
  'entertainment',
  'entrepreneurship',
  'environment',
  'family',
  'finance',
  'health',
  'history',
  'inspiration',
  'legal',
  'literature',
  'music',
  'news',
  'other',
  'parenting',
  'personal',
  'philosophy',
  'politics',
  'psychology',
  'romantic',
  'science',
  'social',
  'spiritual',
  'sports',
  'technology',
  'travel',
  'weather',
  'work',
] as const;

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** The folder picker; `purpose` says what the chosen folder is for. */
export function folderIdField(purpose: string): INodeProperties {
  return {
    displayName: 'Folder Name or ID',
    name: 'folderId',
    type: 'options',
    typeOptions: { loadOptionsMethod: 'getFolders' },
    default: '',
    description: `${purpose}. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
  };
}

const startedAtField: INodeProperties = {
  displayName: 'Started At',
  name: 'startedAt',
  type: 'dateTime',
  default: '',
  description: "When the conversation started (no UTC offset means the workflow's timezone)",
};

const finishedAtField: INodeProperties = {
  displayName: 'Finished At',
  name: 'finishedAt',
  type: 'dateTime',
  default: '',
  description: "When the conversation ended (no UTC offset means the workflow's timezone)",
};

/** Fields shared by both ways of creating a conversation (the body's `conversationInput`). */
export const conversationOptions: INodeProperties[] = [
  {
    displayName: 'Category',
    name: 'category',
    type: 'options',
    default: 'other',
    options: CATEGORIES.map((c) => ({ name: capitalize(c), value: c })),
    description: 'Category of the summary; derived from the text when not set',
  },
  {
    displayName: 'Emoji',
    name: 'emoji',
    type: 'string',
    default: '',
    description: 'An emoji for the summary',
  },
  finishedAtField,
  folderIdField('Put the conversation in this folder'),
  {
    displayName: 'Geolocation',
    name: 'geolocation',
    type: 'fixedCollection',
    default: {},
    description: 'Where the conversation took place',
    options: [
      {
        displayName: 'Location',
        name: 'location',
        values: [
          {
            displayName: 'Latitude',
            name: 'latitude',
            type: 'number',
            typeOptions: { minValue: -90, maxValue: 90, numberPrecision: 6 },
            default: 0,
            description: 'Latitude in degrees (-90 to 90)',
          },
          {
            displayName: 'Longitude',
            name: 'longitude',
            type: 'number',
            typeOptions: { minValue: -180, maxValue: 180, numberPrecision: 6 },
            default: 0,
            description: 'Longitude in degrees (-180 to 180)',
          },
          {
            displayName: 'Address',
            name: 'address',
            type: 'string',
            default: '',
            description: 'A postal address or place name',
          },
        ],
      },
    ],
  },
  {
    displayName: 'Language',
    name: 'language',
    type: 'string',
    default: 'en',
    description: 'Language code of the conversation, e.g. en or de (default en)',
  },
  {
    displayName: 'Overview',
    name: 'overview',
    type: 'string',
    typeOptions: { rows: 3 },
    default: '',
    description: 'Summary of the conversation; derived from the text when not set',
  },
  {
    displayName: 'Source',
    name: 'source',
    type: 'string',
    default: 'api',
    description: 'The device or app the conversation comes from (default api)',
  },
  startedAtField,
  {
    displayName: 'Title',
    name: 'title',
    type: 'string',
    default: '',
    description: 'Title of the conversation; derived from the text when not set',
  },
];

const STRUCTURED = ['title', 'overview', 'category', 'emoji'];

/** Turns the Options collection into the body fields of a new conversation. */
export function conversationBody(
  this: IExecuteFunctions,
  options: IDataObject,
  itemIndex: number,
): IDataObject {
  const { geolocation, ...rest } = options;
  const structured: IDataObject = {};
  const plain: IDataObject = {};
  for (const [name, value] of Object.entries(rest)) {
    if (value === '' || value === undefined) continue;
    (STRUCTURED.includes(name) ? structured : plain)[name] = value;
  }
  const body = toWireFields.call(this, plain, itemIndex, [
    { property: startedAtField },
    { property: finishedAtField },
  ]);
  if (Object.keys(structured).length > 0) body.structured = structured;
  const location = (geolocation as IDataObject | undefined)?.location as IDataObject | undefined;
  if (location) {
    body.geolocation = {
      latitude: location.latitude,
      longitude: location.longitude,
      ...(location.address ? { address: location.address } : {}),
    };
  }
  return body;
}

export const conversationRecord: RecordSpec = {
  resource: 'conversation',
  label: 'Conversation',
  path: '/v1/dev/user/conversations',
  idName: 'conversationId',
  searchListMethod: 'searchConversations',
};
