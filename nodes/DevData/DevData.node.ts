import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as actionItem from './actions/actionItem/ActionItem.resource';
import * as conversation from './actions/conversation/Conversation.resource';
import * as developerKey from './actions/developerKey/DeveloperKey.resource';
import * as folder from './actions/folder/Folder.resource';
import * as goal from './actions/goal/Goal.resource';
import * as memory from './actions/memory/Memory.resource';
import * as notification from './actions/notification/Notification.resource';
import * as person from './actions/person/Person.resource';
import * as proactiveReply from './actions/proactiveReply/ProactiveReply.resource';
import * as screenActivity from './actions/screenActivity/ScreenActivity.resource';
import { router } from './actions/router';
import { listSearch, loadOptions } from './methods';

export class DevData implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'DevData',
    name: 'devData',
    icon: { light: 'file:devData.svg', dark: 'file:devData.dark.svg' },
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description:
      'Read and write DevData memories, conversations, folders, action items, goals, people and screen activity, send notifications, and build proactive replies',
    defaults: { name: 'DevData' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [
      {
        name: 'devDataApi',
        required: true,
        displayOptions: { hide: { resource: ['notification', 'proactiveReply'] } },
      },
      { name: 'devDataAppApi', required: true, displayOptions: { show: { resource: ['notification'] } } },
    ],
    properties: [
      {
        displayName: 'Resource',
        name: 'resource',
        type: 'options',
        noDataExpression: true,
        options: [
          { name: 'Action Item', value: 'actionItem' },
          { name: 'Conversation', value: 'conversation' },
          { name: 'Developer Key', value: 'developerKey' },
          { name: 'Folder', value: 'folder' },
          { name: 'Goal', value: 'goal' },
          { name: 'Memory', value: 'memory' },
          { name: 'Notification', value: 'notification' },
          { name: 'Person', value: 'person' },
          { name: 'Proactive Reply', value: 'proactiveReply' },
          { name: 'Screen Activity', value: 'screenActivity' },
        ],
        default: 'actionItem',
        description: 'The kind of DevData record to work with',
      },
      ...actionItem.description,
      ...conversation.description,
      ...developerKey.description,
      ...folder.description,
      ...goal.description,
      ...memory.description,
      ...notification.description,
      ...person.description,
      ...proactiveReply.description,
      ...screenActivity.description,
    ],
  };

  methods = { listSearch, loadOptions };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await router.call(this);
  }
}
