import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, jsonParse } from 'n8n-workflow';

import { itemMessage } from '../../shared';
import { toBoolean, toNumber } from './utils';

// Transcript segments as the user gives them, one by one or as JSON: for a conversation created from segments and
// for the segments added to a live transcript, which the server reads the same way.

/** A segment's End, in seconds. */
const endField: INodeProperties = {
  displayName: 'End',
  name: 'end',
  type: 'number',
  default: 0,
  typeOptions: { minValue: 0, numberPrecision: 3 },
  description: 'End of the segment, in seconds from the start of the conversation',
};

/** A segment's Start, in seconds. */
const startField: INodeProperties = {
  displayName: 'Start',
  name: 'start',
  type: 'number',
  default: 0,
  typeOptions: { minValue: 0, numberPrecision: 3 },
  description: 'Start of the segment, in seconds from the start of the conversation',
};

/** A segment's Is User. */
const isUserField: INodeProperties = {
  displayName: 'Is User',
  name: 'isUser',
  type: 'boolean',
  default: false,
  description: 'Whether the user (rather than someone else) is speaking',
};

/** The segments as a JSON array (Segments Input: JSON). */
const segmentsJsonField: INodeProperties = {
  displayName: 'Segments (JSON)',
  name: 'transcriptSegmentsJson',
  type: 'json',
  default: '[\n  {"text": "Hello", "speaker": "SPEAKER_00", "is_user": true, "start": 0, "end": 1.2}\n]',
  required: true,
  description:
    'An array of segments with text, start and end (seconds), and optionally speaker (or speaker_name), speaker_id, is_user and person_id. An expression giving such an array (e.g. the segments field of the input item) works too.',
  displayOptions: { show: { segmentsInput: ['json'] } },
};

/** The segments one by one (Segments Input: Define Below), as errors name them. */
const SEGMENTS = { displayName: 'Segments', name: 'transcriptSegments' } as const;

export const segmentsProperties: INodeProperties[] = [
  {
    displayName: 'Segments Input',
    name: 'segmentsInput',
    type: 'options',
    noDataExpression: true,
    default: 'fields',
    options: [
      { name: 'Define Below', value: 'fields', description: 'Enter the segments one by one' },
      {
        name: 'JSON',
        value: 'json',
        description: 'Give the segments as a JSON array, e.g. from a previous node',
      },
    ],
    description: 'How to give the transcript segments',
  },
  {
    ...SEGMENTS,
    type: 'fixedCollection',
    typeOptions: { multipleValues: true, sortable: true },
    default: {},
    placeholder: 'Add Segment',
    description: 'The transcript, one segment per utterance (1–500 segments)',
    displayOptions: { show: { segmentsInput: ['fields'] } },
    options: [
      {
        displayName: 'Segment',
        name: 'segment',
        values: [
          endField,
          isUserField,
          {
            displayName: 'Person ID',
            name: 'personId',
            type: 'string',
            default: '',
            description:
              "The ID of the person speaking, one of the user's people (stored and returned as given)",
          },
          {
            displayName: 'Speaker',
            name: 'speaker',
            type: 'string',
            default: '',
            placeholder: 'SPEAKER_00',
            description: 'Speaker label, e.g. SPEAKER_00',
          },
          startField,
          {
            displayName: 'Text',
            name: 'text',
            type: 'string',
            default: '',
            description: 'What was said',
          },
        ],
      },
    ],
  },
  segmentsJsonField,
];

/**
 * `segments`, unless the item gives none: then the item fails naming the parameter the user filled (`shown`), where
 * the server refuses the empty list under its own field name (`segments` for a live transcript), shown nowhere.
 */
function nonEmpty(
  this: IExecuteFunctions,
  segments: IDataObject[],
  shown: string,
  itemIndex: number,
): IDataObject[] {
  if (segments.length > 0) return segments;
  throw new NodeOperationError(this.getNode(), itemMessage(`${shown} is empty`, itemIndex), {
    itemIndex,
    description:
      'Add at least one segment (up to 500). If it comes from an expression, check what it evaluates to for this item.',
  });
}

/** The segments the item gives, as the server reads them. */
export function segmentsOf(this: IExecuteFunctions, itemIndex: number): IDataObject[] {
  if (this.getNodeParameter('segmentsInput', itemIndex) === 'fields') {
    const segments = this.getNodeParameter(`${SEGMENTS.name}.segment`, itemIndex, []) as IDataObject[];
    return nonEmpty
      .call(this, segments, SEGMENTS.displayName, itemIndex)
      .map(({ isUser, speaker, personId, start, end, ...segment }) => ({
        ...segment,
        start: toNumber.call(this, start, startField.displayName, itemIndex),
        end: toNumber.call(this, end, endField.displayName, itemIndex),
        is_user: toBoolean.call(this, isUser, isUserField.displayName, itemIndex) ?? false,
        ...(speaker ? { speaker } : {}),
        ...(personId ? { person_id: personId } : {}),
      }));
  }
  const raw = this.getNodeParameter(segmentsJsonField.name, itemIndex) as unknown;
  // Not JSON, like JSON that is not an array, is the error below (jsonParse throws for a fallback of undefined).
  const segments = typeof raw === 'string' ? jsonParse<unknown>(raw, { fallbackValue: null }) : raw;
  if (!Array.isArray(segments)) {
    throw new NodeOperationError(
      this.getNode(),
      itemMessage(`${segmentsJsonField.displayName} must be a JSON array of segments`, itemIndex),
      {
        itemIndex,
        description: 'For example [{"text": "Hello", "start": 0, "end": 1.2}]',
      },
    );
  }
  return nonEmpty.call(this, segments as IDataObject[], segmentsJsonField.displayName, itemIndex);
}
