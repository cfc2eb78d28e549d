import type {
  IExecuteFunctions,
  INodeExecutionData,
  INodeProperties,
  INodeType,
  INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as actionItem from './actions/actionItem/ActionItem.resource';
import * as conversation from './actions/conversation/Conversation.resource';
import * as developerKey from './actions/developerKey/DeveloperKey.resource';
import * as folder from './actions/folder/Folder.resource';
import * as goal from './actions/goal/Goal.resource';
import * as liveTranscript from './actions/liveTranscript/LiveTranscript.resource';
import * as memory from './actions/memory/Memory.resource';
import * as notification from './actions/notification/Notification.resource';
import * as person from './actions/person/Person.resource';
import * as proactiveReply from './actions/proactiveReply/ProactiveReply.resource';
import * as screenActivity from './actions/screenActivity/ScreenActivity.resource';
import { router } from './actions/router';
import { listSearch, loadOptions } from './methods';

const resourceProperties: INodeProperties[] = [
  ...actionItem.description,
  ...conversation.description,
  ...developerKey.description,
  ...folder.description,
  ...goal.description,
  ...liveTranscript.description,
  ...memory.description,
  ...notification.description,
  ...person.description,
  ...proactiveReply.description,
  ...screenActivity.description,
];

export class DevData implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'DevData',
    name: 'devData',
    icon: { light: 'file:devData.svg', dark: 'file:devData.dark.svg' },
    group: ['transform'],
    version: 1,
    // The chosen operation's action as a sentence ("Get many goals"), by resource and operation. Written out, so
    // n8n's lint sees a subtitle; the package test checks it against every operation's action.
    subtitle:
      '={{ {"actionItem:create":"Create an action item","actionItem:createMany":"Create many action items","actionItem:delete":"Delete an action item","actionItem:getAll":"Get many action items","actionItem:update":"Update an action item","conversation:createFromSegments":"Create a conversation from segments","conversation:createFromText":"Create a conversation from text","conversation:delete":"Delete a conversation","conversation:get":"Get a conversation","conversation:getAll":"Get many conversations","conversation:search":"Search conversations","conversation:update":"Update a conversation","developerKey:create":"Create a developer key","developerKey:delete":"Revoke a developer key","developerKey:getAll":"Get many developer keys","developerKey:getCurrent":"Get the current developer key","folder:create":"Create a folder","folder:delete":"Delete a folder","folder:getAll":"Get many folders","folder:update":"Update a folder","goal:delete":"Abandon a goal","goal:create":"Create a goal","goal:get":"Get a goal","goal:getHistory":"Get the history of a goal","goal:getAll":"Get many goals","goal:update":"Update a goal","goal:updateProgress":"Update the progress of a goal","liveTranscript:addSegments":"Add segments to a live transcript","liveTranscript:finish":"Finish a live transcript","memory:create":"Create a memory","memory:createMany":"Create many memories","memory:delete":"Delete a memory","memory:getAll":"Get many memories","memory:search":"Search memories","memory:update":"Update a memory","notification:getAll":"Get many notifications","notification:send":"Send a notification","person:create":"Create a person","person:delete":"Delete a person","person:getAll":"Get many people","person:update":"Update a person","proactiveReply:build":"Build a proactive reply","screenActivity:createMany":"Create many screen activity records","screenActivity:getAll":"Get many screen activity records"}[$parameter["resource"] + ":" + $parameter["operation"]] }}',
    description:
      'Read and write DevData memories, conversations, folders, action items, goals, people, screen activity and developer keys, add to live transcripts, send and read notifications, and build proactive replies',
    defaults: { name: 'DevData' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [
      {
        name: 'devDataApi',
        required: true,
        // Hidden where an option matches: Proactive Reply sends nothing, and Send (Notification's alone) uses the app.
        displayOptions: { hide: { resource: ['proactiveReply'], operation: ['send'] } },
      },
      {
        name: 'devDataAppApi',
        required: true,
        displayOptions: { show: { resource: ['notification'], operation: ['send'] } },
      },
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
          { name: 'Live Transcript', value: 'liveTranscript' },
          { name: 'Memory', value: 'memory' },
          { name: 'Notification', value: 'notification' },
          { name: 'Person', value: 'person' },
          { name: 'Proactive Reply', value: 'proactiveReply' },
          { name: 'Screen Activity', value: 'screenActivity' },
        ],
        default: 'actionItem',
        description: 'The kind of DevData record to work with',
      },
      ...resourceProperties,
    ],
  };

  methods = { listSearch, loadOptions };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await router.call(this);
  }
}
