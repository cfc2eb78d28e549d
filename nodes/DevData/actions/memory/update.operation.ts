import type { INodeProperties } from 'n8n-workflow';

import { byDisplayName } from '../common.description';
import { updateById } from '../crud';
import { contentField, memoryFields, memoryRecord, memoryWireFields } from './fields';

/**
 * What an update says of a field where it differs from a new memory's: an update defaults nothing, so a field
 * added here sets its value, the preselected one included.
 */
const UPDATE_DESCRIPTIONS: Record<string, string> = {
  category:
    'New category of the memory. Interesting, manual and system are the current ones; the ones marked older are still accepted and kept as given.',
  tags: "Comma-separated tags (up to 20, each up to 50 characters). They replace the memory's tags; left empty, the memory keeps none.",
  visibility: 'Who may see the memory',
};

const updateField = (field: INodeProperties): INodeProperties =>
  field.name in UPDATE_DESCRIPTIONS ? { ...field, description: UPDATE_DESCRIPTIONS[field.name] } : field;

export const { description, execute } = updateById(
  memoryRecord,
  byDisplayName([...memoryFields.map(updateField), { ...contentField, required: false }]),
  memoryWireFields,
);
