import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { itemMessage } from '../../../shared';
import type { RecordSpec } from '../crud';
import { simplifyField } from '../common.description';
import { toUtcIso } from '../dates';
import { toBoolean, toNumber, toWireFields } from '../utils';

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
  'real',
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

export const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** The folder picker; `purpose` says what the chosen folder is for. */
export function folderIdField(purpose: string): INodeProperties {
  return {
    displayName: 'Folder Name or ID',
    name: 'folderId',
    type: 'options',
    typeOptions: { loadOptionsMethod: 'getFolders' },
    default: '',
    description: `${purpose}; an expression must give the folder's ID, not its name (get it from Folder → Get Many). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
  };
}

/** The Started After filter of Get Many and Search. */
export const startedAfterFilter: INodeProperties = {
  displayName: 'Started After',
  name: 'startDate',
  type: 'dateTime',
  default: '',
  description:
    'Return only conversations started at or after this time, as an ISO 8601 date or date-time (a date alone means the start of that UTC day)',
};

/** The Started Before filter of Get Many and Search. */
export const startedBeforeFilter: INodeProperties = {
  displayName: 'Started Before',
  name: 'endDate',
  type: 'dateTime',
  default: '',
  description:
    'Return only conversations started at or before this time, as an ISO 8601 date or date-time (a date alone includes the whole UTC day)',
};

/** The Include In Progress option of Get Many and Search. */
export const includeInProgressOption: INodeProperties = {
  displayName: 'Include In Progress',
  name: 'includeInProgress',
  type: 'boolean',
  default: true,
  description:
    'Whether to include conversations whose live transcript session is still open (status in_progress); without it only completed ones are returned. A server that does not know statuses (the real service) ignores it.',
};

/** The `statuses` sent for Include In Progress: both when it is on, else none (the server's default, completed). */
export function statusesFor(
  this: IExecuteFunctions,
  includeInProgress: unknown,
  itemIndex: number,
): string | undefined {
  return toBoolean.call(this, includeInProgress, includeInProgressOption.displayName, itemIndex)
    ? 'in_progress,completed'
    : undefined;
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

/** What kind of text Create From Text stores (the server's text_source). */
export const textSourceFields: INodeProperties[] = [
  {
    displayName: 'Text Source',
    name: 'textSource',
    type: 'options',
    default: 'other_text',
    options: [
      { name: 'Audio Transcript', value: 'audio_transcript' },
      { name: 'Message', value: 'message' },
      { name: 'Other Text', value: 'other_text' },
    ],
    description: 'What kind of text this is (default Other Text)',
  },
  {
    displayName: 'Text Source Spec',
    name: 'textSourceSpec',
    type: 'string',
    default: '',
    placeholder: 'e.g. email',
    description: 'Where the text came from, in your own words, e.g. email or slack',
  },
];

/** An event's Duration (Minutes). */
const eventDurationField: INodeProperties = {
  displayName: 'Duration (Minutes)',
  name: 'duration',
  type: 'number',
  typeOptions: { minValue: 0, maxValue: 525_600, numberPrecision: 0 },
  default: 30,
  description: 'How long the event lasts, in minutes (at most a year)',
};

/** An event's Added to Calendar. */
const eventCreatedField: INodeProperties = {
  displayName: 'Added to Calendar',
  name: 'created',
  type: 'boolean',
  default: false,
  description: 'Whether the event has been added to a calendar',
};

/** An event's Event Start. */
const eventStartField: INodeProperties = {
  displayName: 'Event Start',
  name: 'start',
  type: 'dateTime',
  required: true,
  default: '',
  description: "When the event starts (no UTC offset means the workflow's timezone)",
};

/** A place's Latitude. */
const latitudeField: INodeProperties = {
  displayName: 'Latitude',
  name: 'latitude',
  type: 'number',
  typeOptions: { minValue: -90, maxValue: 90, numberPrecision: 6 },
  default: 0,
  description: 'Latitude in degrees (-90 to 90); Latitude and Longitude both 0 are refused as not set',
};

/** A place's Longitude. */
const longitudeField: INodeProperties = {
  displayName: 'Longitude',
  name: 'longitude',
  type: 'number',
  typeOptions: { minValue: -180, maxValue: 180, numberPrecision: 6 },
  default: 0,
  description: 'Longitude in degrees (-180 to 180); Latitude and Longitude both 0 are refused as not set',
};

/** Fields shared by both ways of creating a conversation (the body's `conversationInput`). */
export const conversationOptions: INodeProperties[] = [
  {
    displayName: 'Category',
    name: 'category',
    type: 'options',
    default: 'other',
    options: CATEGORIES.map((c) => ({ name: capitalize(c), value: c })),
    description: 'Category of the summary (Other when not set)',
  },
  {
    displayName: 'Emoji',
    name: 'emoji',
    type: 'string',
    default: '',
    description: 'An emoji for the summary',
  },
  {
    displayName: 'Events',
    name: 'events',
    type: 'fixedCollection',
    typeOptions: { multipleValues: true },
    default: {},
    placeholder: 'Add Event',
    description: 'Calendar events the conversation mentions (up to 100), kept in its summary',
    options: [
      {
        displayName: 'Event',
        name: 'event',
        values: [
          eventCreatedField,
          {
            displayName: 'Description',
            name: 'description',
            type: 'string',
            default: '',
            description: 'What the event is about (up to 5000 characters)',
          },
          eventDurationField,
          eventStartField,
          {
            displayName: 'Event Title',
            name: 'title',
            type: 'string',
            required: true,
            default: '',
            description: 'Name of the event (up to 500 characters)',
          },
        ],
      },
    ],
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
            displayName: 'Address',
            name: 'address',
            type: 'string',
            default: '',
            description: 'A postal address or place name',
          },
          {
            displayName: 'Google Place ID',
            name: 'googlePlaceId',
            type: 'string',
            default: '',
            description: "The place's ID in Google Maps, if known",
          },
          latitudeField,
          {
            displayName: 'Location Type',
            name: 'locationType',
            type: 'string',
            default: '',
            placeholder: 'e.g. office',
            description: 'What kind of place it is, in your own words',
          },
          longitudeField,
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
  const { geolocation, events, ...rest } = options;
  const structured: IDataObject = {};
  const plain: IDataObject = {};
  for (const [name, value] of Object.entries(rest)) {
    // Empty, or null as an expression gives for an input field that holds nothing: left out, as toWireFields does.
    if (value === '' || value === undefined || value === null) continue;
    (STRUCTURED.includes(name) ? structured : plain)[name] = value;
  }
  const body = toWireFields.call(this, plain, itemIndex, [
    { property: startedAtField },
    { property: finishedAtField },
  ]);
  const eventList = ((events as IDataObject | undefined)?.event ?? []) as IDataObject[];
  if (eventList.length > 0) {
    structured.events = eventList.map((event) => ({
      title: event.title,
      description: event.description ?? '',
      start: toUtcIso.call(this, event.start, eventStartField.displayName, itemIndex),
      duration: toNumber.call(
        this,
        event.duration ?? eventDurationField.default,
        eventDurationField.displayName,
        itemIndex,
      ),
      created: toBoolean.call(this, event.created, eventCreatedField.displayName, itemIndex) ?? false,
    }));
  }
  if (Object.keys(structured).length > 0) body.structured = structured;
  const location = (geolocation as IDataObject | undefined)?.location as IDataObject | undefined;
  if (location) {
    const latitude = toNumber.call(this, location.latitude, latitudeField.displayName, itemIndex);
    const longitude = toNumber.call(this, location.longitude, longitudeField.displayName, itemIndex);
    // Both fields default to 0, so 0, 0 is what a Location with only an address sends: storing it would put the
    // conversation in the Gulf of Guinea. The API keeps a place only with its coordinates.
    if (latitude === 0 && longitude === 0) {
      throw new NodeOperationError(
        this.getNode(),
        itemMessage('Geolocation needs a Latitude and Longitude other than 0, 0', itemIndex),
        {
          itemIndex,
          description:
            'The API stores a place only with its coordinates, so an address alone cannot be kept. Set Latitude ' +
            'and Longitude (an address can go in Overview), or remove Geolocation.',
        },
      );
    }
    body.geolocation = {
      latitude,
      longitude,
      ...(location.address ? { address: location.address } : {}),
      ...(location.googlePlaceId ? { google_place_id: location.googlePlaceId } : {}),
      ...(location.locationType ? { location_type: location.locationType } : {}),
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
  nameField: 'title',
};

/** The most transcript segments a simplified conversation shows; the rest are counted. */
export const SIMPLIFIED_SEGMENTS = 50;
/**
 * The most transcript characters a simplified conversation shows: a conversation created from text is one segment
 * of up to 200,000 characters, so the segment count alone does not bound the size.
 */
export const SIMPLIFIED_TRANSCRIPT_CHARS = 8000;

/** Simplify for a conversation read: the fields an agent needs and the transcript capped. */
export const simplifyConversationField: INodeProperties = {
  ...simplifyField,
  description: `${simplifyField.description}: the conversation's ID, title, overview, category, times, folder, flags and action items, and of the transcript, when the output includes it, at most the first ${SIMPLIFIED_SEGMENTS} segments (${SIMPLIFIED_TRANSCRIPT_CHARS} characters), the rest counted in transcript_segments_omitted`,
};

/**
 * A conversation as Simplify shows it: the summary flattened, the action items' descriptions and states, and the
 * transcript (when the record has one) capped at the first segments and characters, with the count of segments
 * left out, so that a model can tell there is more and ask for the raw record.
 */
export function simplifyConversation(record: IDataObject): IDataObject {
  const structured = (record.structured ?? {}) as IDataObject;
  const actionItems = (structured.action_items ?? []) as IDataObject[];
  const simplified: IDataObject = {
    id: record.id,
    title: structured.title,
    overview: structured.overview,
    category: structured.category,
    started_at: record.started_at,
    finished_at: record.finished_at,
    language: record.language,
    folder_id: record.folder_id,
    folder_name: record.folder_name,
    starred: record.starred,
    discarded: record.discarded,
    status: record.status,
    action_items: actionItems.map(({ description, completed, due_at }) => ({
      description,
      completed,
      due_at,
    })),
  };
  if (Array.isArray(record.transcript_segments)) {
    const segments = record.transcript_segments as IDataObject[];
    const kept: IDataObject[] = [];
    let budget = SIMPLIFIED_TRANSCRIPT_CHARS;
    for (const { speaker_name, is_user, start, end, text } of segments) {
      if (kept.length === SIMPLIFIED_SEGMENTS || budget <= 0) break;
      const whole = String(text ?? '');
      const shown = whole.length > budget ? `${whole.slice(0, budget)}…` : whole;
      budget -= whole.length;
      kept.push({ speaker_name, is_user, start, end, text: shown });
    }
    simplified.transcript_segments = kept;
    simplified.transcript_segments_omitted = segments.length - kept.length;
  }
  return simplified;
}

/** Include Transcript in Output: a create answers the whole record, which a long transcript makes large. */
export const includeTranscriptInOutputField: INodeProperties = {
  displayName: 'Include Transcript in Output',
  name: 'includeTranscriptInOutput',
  type: 'boolean',
  default: false,
  description:
    'Whether the node outputs the transcript segments the server stored (off: the new conversation without its transcript_segments; the transcript is stored either way)',
};

/** A create's output: the server's answer, without the transcript unless Include Transcript in Output is on. */
export function createdOutput(
  this: IExecuteFunctions,
  answer: IDataObject,
  includeTranscript: unknown,
  itemIndex: number,
): IDataObject {
  if (toBoolean.call(this, includeTranscript, includeTranscriptInOutputField.displayName, itemIndex))
    return answer;
  const compact = { ...answer };
  delete compact.transcript_segments;
  return compact;
}
