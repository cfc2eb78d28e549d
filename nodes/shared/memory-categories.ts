import type { INodePropertyOptions } from 'n8n-workflow';

/**
 * The memory categories, by name: the current ones and the older ones the service still accepts and keeps as
 * given. The DevData node offers them for a memory's Category and the memory filters, the Poll Trigger for New
 * Memory's Categories.
 */
export const MEMORY_CATEGORY_OPTIONS: INodePropertyOptions[] = [
  { name: 'Auto (Older)', value: 'auto' },
  { name: 'Core (Older)', value: 'core' },
  { name: 'Habits (Older)', value: 'habits' },
  { name: 'Hobbies (Older)', value: 'hobbies' },
  { name: 'Interesting', value: 'interesting' },
  { name: 'Interests (Older)', value: 'interests' },
  { name: 'Learnings (Older)', value: 'learnings' },
  { name: 'Lifestyle (Older)', value: 'lifestyle' },
  { name: 'Manual', value: 'manual' },
  { name: 'Other (Older)', value: 'other' },
  { name: 'Skills (Older)', value: 'skills' },
  { name: 'System', value: 'system' },
  { name: 'Work (Older)', value: 'work' },
];
