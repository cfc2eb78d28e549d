// Workflows the e2e suites import besides examples/: one manual workflow that runs every resource's main
// operations, written as n8n exports workflows, and the check of what it leaves on the server.
import { PACKAGE_NAME } from '../helpers/package.ts';
import { devdataApi, serverRequests, type DevdataServer } from './harness.ts';

export const DEVDATA = `${PACKAGE_NAME}.devData`;
export const DEV_CREDENTIAL = { devDataApi: { id: 'devDataApiDemo01', name: 'DevData Developer API' } };
export const APP_CREDENTIAL = { devDataAppApi: { id: 'devDataAppDemo01', name: 'DevData App API' } };

interface Step {
  name: string;
  parameters: Record<string, unknown>;
  app?: boolean;
}

const ref = (node: string, field = 'id') => `={{ $('${node}').item.json.${field} }}`;
/** A record locator set "By ID", as n8n saves one whose ID is mapped with an expression. */
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/** Manual Trigger → a chain of DevData nodes, each run once, covering every resource. */
export function allOperationsWorkflow(userId: string) {
  const steps: Step[] = [
    { name: 'Who am I', parameters: { resource: 'developerKey', operation: 'getCurrent' } },
    {
      name: 'Create action item',
      parameters: {
        resource: 'actionItem',
        operation: 'create',
        description: 'E2E: call the plumber',
        additionalFields: { dueAt: '2026-12-01T09:00:00Z' },
      },
    },
    {
      name: 'Complete it',
      parameters: {
        resource: 'actionItem',
        operation: 'update',
        actionItemId: byId(ref('Create action item')),
        updateFields: { completed: true, clearDueAt: true },
      },
    },
    {
      name: 'Create throwaway action item',
      parameters: { resource: 'actionItem', operation: 'create', description: 'E2E: to be deleted' },
    },
    {
      name: 'Delete action item',
      parameters: {
        resource: 'actionItem',
        operation: 'delete',
        actionItemId: byId(ref('Create throwaway action item')),
      },
    },
    {
      name: 'Create goal',
      parameters: {
        resource: 'goal',
        operation: 'create',
        title: 'E2E: read 12 books',
        goalType: 'numeric',
        targetValue: 12,
      },
    },
    {
      name: 'Record progress',
      parameters: {
        resource: 'goal',
        operation: 'updateProgress',
        goalId: byId(ref('Create goal')),
        currentValue: 3,
      },
    },
    {
      name: 'Rename goal',
      parameters: {
        resource: 'goal',
        operation: 'update',
        goalId: byId(ref('Create goal')),
        updateFields: { title: 'E2E: read 12 novels' },
      },
    },
    {
      name: 'Get goal',
      parameters: { resource: 'goal', operation: 'get', goalId: byId(ref('Create goal')) },
    },
    {
      name: 'Goal history',
      parameters: { resource: 'goal', operation: 'getHistory', goalId: byId(ref('Create goal')), days: 7 },
    },
    {
      name: 'Create goal to drop',
      parameters: {
        resource: 'goal',
        operation: 'create',
        title: 'E2E: learn the tuba',
        goalType: 'boolean',
      },
    },
    {
      name: 'Drop goal',
      parameters: { resource: 'goal', operation: 'delete', goalId: byId(ref('Create goal to drop')) },
    },
    {
      name: 'Create memory',
      parameters: { resource: 'memory', operation: 'create', content: 'E2E: likes jasmine tea' },
    },
    {
      name: 'Update memory',
      parameters: {
        resource: 'memory',
        operation: 'update',
        memoryId: byId(ref('Create memory')),
        updateFields: { content: 'E2E: loves jasmine tea' },
      },
    },
    {
      name: 'Create throwaway memory',
      parameters: { resource: 'memory', operation: 'create', content: 'E2E: forget me' },
    },
    {
      name: 'Delete memory',
      parameters: { resource: 'memory', operation: 'delete', memoryId: byId(ref('Create throwaway memory')) },
    },
    { name: 'Create person', parameters: { resource: 'person', operation: 'create', name: 'E2E Alex' } },
    {
      name: 'Rename person',
      parameters: {
        resource: 'person',
        operation: 'update',
        personId: byId(ref('Create person')),
        updateFields: { name: 'E2E Alexandra' },
      },
    },
    {
      name: 'Create throwaway person',
      parameters: { resource: 'person', operation: 'create', name: 'E2E Temp' },
    },
    {
      name: 'Delete person',
      parameters: { resource: 'person', operation: 'delete', personId: byId(ref('Create throwaway person')) },
    },
    { name: 'Create folder', parameters: { resource: 'folder', operation: 'create', name: 'E2E Folder' } },
    {
      name: 'Rename folder',
      parameters: {
        resource: 'folder',
        operation: 'update',
        folderId: byId(ref('Create folder')),
        updateFields: { name: 'E2E Projects' },
      },
    },
    {
      name: 'Conversation from text',
      parameters: {
        resource: 'conversation',
        operation: 'createFromText',
        text: 'E2E: we agreed to ship the sync on Friday and demo it on Monday.',
        options: { folderId: ref('Create folder'), title: 'E2E shipping plan' },
      },
    },
    {
      name: 'Retitle conversation',
      parameters: {
        resource: 'conversation',
        operation: 'update',
        conversationId: byId(ref('Conversation from text')),
        updateFields: { title: 'E2E shipping plan (agreed)' },
      },
    },
    {
      name: 'Get conversation',
      parameters: {
        resource: 'conversation',
        operation: 'get',
        conversationId: byId(ref('Conversation from text')),
        options: { includeTranscript: true },
      },
    },
    {
      name: 'Conversation from segments',
      parameters: {
        resource: 'conversation',
        operation: 'createFromSegments',
        segmentsInput: 'json',
        transcriptSegmentsJson:
          '[{"text":"E2E: short call","speaker":"SPEAKER_00","is_user":true,"start":0,"end":2}]',
        options: { clientSessionId: 'e2e-session-1' },
      },
    },
    {
      name: 'Delete conversation',
      parameters: {
        resource: 'conversation',
        operation: 'delete',
        conversationId: byId(ref('Conversation from segments')),
      },
    },
    {
      name: 'Create throwaway folder',
      parameters: { resource: 'folder', operation: 'create', name: 'E2E Temp Folder' },
    },
    {
      name: 'Delete folder',
      parameters: { resource: 'folder', operation: 'delete', folderId: byId(ref('Create throwaway folder')) },
    },
    { name: 'List people', parameters: { resource: 'person', operation: 'getAll', returnAll: true } },
    { name: 'List memories', parameters: { resource: 'memory', operation: 'getAll', returnAll: true } },
    {
      name: 'List goals',
      parameters: {
        resource: 'goal',
        operation: 'getAll',
        returnAll: true,
        options: { includeInactive: true },
      },
    },
    { name: 'List folders', parameters: { resource: 'folder', operation: 'getAll', returnAll: true } },
    {
      name: 'List conversations',
      parameters: { resource: 'conversation', operation: 'getAll', returnAll: true },
    },
    {
      name: 'List action items',
      parameters: { resource: 'actionItem', operation: 'getAll', returnAll: true },
    },
    {
      name: 'Record screen activity',
      parameters: {
        resource: 'screenActivity',
        operation: 'createMany',
        timestamp: '2026-11-20T08:00:00Z',
        appName: 'E2E Terminal',
        additionalFields: { windowTitle: 'E2E: npm test' },
      },
    },
    {
      name: 'All screen activity',
      parameters: { resource: 'screenActivity', operation: 'getAll', returnAll: true },
    },
    {
      name: 'Notify',
      app: true,
      parameters: {
        resource: 'notification',
        operation: 'send',
        uid: userId,
        message: 'E2E: all operations ran',
      },
    },
  ];

  const trigger = {
    id: 'e2e00000-0000-4000-8000-000000000000',
    name: 'Run',
    type: 'n8n-nodes-base.manualTrigger',
    typeVersion: 1,
    position: [0, 0],
    parameters: {},
  };
  const nodes = steps.map((step, i) => ({
    id: `e2e00000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
    name: step.name,
    type: DEVDATA,
    typeVersion: 1,
    position: [220 * (i + 1), 0],
    // Each step runs once, whatever the previous step put out.
    executeOnce: true,
    parameters: step.parameters,
    credentials: step.app ? APP_CREDENTIAL : DEV_CREDENTIAL,
  }));
  const chain = [trigger, ...nodes];
  const connections = Object.fromEntries(
    chain
      .slice(0, -1)
      .map((node, i) => [node.name, { main: [[{ node: chain[i + 1].name, type: 'main', index: 0 }]] }]),
  );
  return {
    id: 'e2eAllOperations',
    name: 'E2E: every resource',
    active: false,
    nodes: chain,
    connections,
    settings: { executionOrder: 'v1' },
  };
}

/** What a successful run of the every-resource workflow leaves on the server, checked through its API. */
export async function expectAllOperationsStored(result: any, devdata: DevdataServer): Promise<void> {
  const api = (path: string) => devdataApi(devdata, path);
  expect(result.status).toBe('success');
  const runData = result.data.resultData.runData;
  // The demo's 3,000 records and the one the workflow recorded.
  const screenActivity = runData['All screen activity'][0].data.main[0];
  expect(screenActivity).toHaveLength(3001);
  expect(screenActivity.filter((item: any) => item.json.app_name === 'E2E Terminal')).toMatchObject([
    { json: { timestamp: '2026-11-20T08:00:00.000Z', window_title: 'E2E: npm test' } },
  ]);
  // Return All followed the cursor over several pages.
  const pages = await serverRequests(devdata, 'GET', '/v1/dev/user/screen-activity');
  expect(pages.length).toBeGreaterThanOrEqual(3);
  expect(pages.filter((url) => url.includes('cursor=')).length).toBe(pages.length - 1);

  const items = (await api('/v1/dev/user/action-items?limit=1000')).body as any[];
  expect(items.find((i) => i.description === 'E2E: call the plumber')).toMatchObject({
    completed: true,
    due_at: null,
  });
  expect(items.some((i) => i.description === 'E2E: to be deleted')).toBe(false);

  const goals = (await api('/v1/dev/user/goals?include_inactive=true&limit=1000')).body as any[];
  expect(goals.find((g) => g.title === 'E2E: read 12 novels')).toMatchObject({
    current_value: 3,
    target_value: 12,
  });
  expect(goals.find((g) => g.title === 'E2E: learn the tuba')).toMatchObject({
    status: 'abandoned',
    is_active: false,
  });

  const memories = (await api('/v1/dev/user/memories?limit=1000')).body as any[];
  expect(memories.map((m) => m.content)).toContain('E2E: loves jasmine tea');
  expect(memories.map((m) => m.content)).not.toContain('E2E: forget me');
  expect(memories.map((m) => m.content)).not.toContain('E2E: likes jasmine tea');

  const people = (await api('/v1/dev/user/people')).body.people as any[];
  expect(people.map((p) => p.name)).toContain('E2E Alexandra');
  expect(people.map((p) => p.name)).not.toEqual(expect.arrayContaining(['E2E Alex']));
  expect(people.map((p) => p.name)).not.toContain('E2E Temp');

  const folders = (await api('/v1/dev/user/folders')).body as any[];
  const folder = folders.find((f) => f.name === 'E2E Projects');
  expect(folder).toMatchObject({ conversation_count: 1 });
  expect(folders.some((f) => f.name === 'E2E Temp Folder')).toBe(false);

  const conversations = (await api(`/v1/dev/user/conversations?folder_id=${folder.id}`)).body as any[];
  expect(conversations.map((c) => c.structured.title)).toEqual(['E2E shipping plan (agreed)']);
  const deletedId = runData['Conversation from segments'][0].data.main[0][0].json.id;
  expect((await api(`/v1/dev/user/conversations/${deletedId}`)).status).toBe(404);

  const inbox = (await api('/v1/dev/user/notifications')).body.notifications as any[];
  expect(inbox[0]).toMatchObject({
    kind: 'direct',
    text: 'E2E: all operations ran',
    app_id: devdata.credentials.app_id,
  });
}

export const POLL_TRIGGER = `${PACKAGE_NAME}.devDataPollTrigger`;
/** The poll-trigger workflow's triggers, by node name. */
export const POLL_TRIGGERS = {
  'New action items': 'newActionItem',
  'Updated action items': 'updatedActionItem',
  'Deleted action items': 'deletedActionItem',
} as const;

/** New, Updated and Deleted Action Item, each polling every minute into a No Operation node. */
export function pollTriggerWorkflow(id: string) {
  const names = Object.keys(POLL_TRIGGERS) as Array<keyof typeof POLL_TRIGGERS>;
  return {
    id,
    name: 'E2E: action item poll triggers',
    nodes: names.flatMap((name, i) => [
      {
        id: `e2e-poll-trigger-${i}`,
        name,
        type: POLL_TRIGGER,
        typeVersion: 1,
        position: [0, i * 200],
        parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, event: POLL_TRIGGERS[name] },
        credentials: DEV_CREDENTIAL,
      },
      {
        id: `e2e-poll-next-${i}`,
        name: `After ${name}`,
        type: 'n8n-nodes-base.noOp',
        typeVersion: 1,
        position: [240, i * 200],
        parameters: {},
      },
    ]),
    connections: Object.fromEntries(
      names.map((name) => [name, { main: [[{ node: `After ${name}`, type: 'main', index: 0 }]] }]),
    ),
    settings: { executionOrder: 'v1' },
    active: false,
  };
}
