// Runs a workflow with a polling trigger the way an n8n instance does, with the real pieces from n8n-core:
//
// - Activation (n8n-core ActiveWorkflowTriggers.activatePollTrigger): one PollContext in 'trigger' mode is made
//   for the node when the workflow is activated and used for every poll; PollTriggerExecutor (the function n8n's
//   scheduler calls on each tick) runs the node's poll() once as a test poll (errors fail the activation), then
//   once per tick (errors go to __emitError: the tick fails, the workflow stays active).
// - One Workflow object is kept in memory while the workflow is active, so the node's static data lives on it
//   between polls, as in n8n's ActiveWorkflows. n8n saves it (WorkflowStaticDataService.saveStaticData: only when
//   `__dataChanged`) after activation and when a poll emits (before the execution runs). What a poll that emitted
//   nothing stored stays in memory only: n8n's __commitCursor saves it only with durable poll cursors
//   (N8N_POLLER_DURABLE_CURSORS_ENABLED), off by default (`durableCursors` turns it on here). `restart()` is n8n
//   starting again: a new Workflow from the saved static data, activated with 'init'.
// - __emit starts an execution as n8n's WorkflowExecutionService.runWorkflow does: WorkflowExecute in 'trigger'
//   mode, with the trigger node and the emitted items on the node execution stack.
// - A manual run ("Execute workflow" / "Fetch test event") is WorkflowExecute in 'manual' mode, which runs poll()
//   in a PollContext with mode 'manual'.
// n8n's CLI (ActiveWorkflowManager, which wires these together) is not a package we can import.
import { randomUUID } from 'node:crypto';
import { Container } from '@n8n/di';
import { PollContext, PollTriggerExecutor, WorkflowExecute } from 'n8n-core';
import type {
  IDataObject,
  IExecuteFunctions,
  INode,
  INodeExecutionData,
  INodeParameters,
  INodeType,
  IRun,
  IWorkflowBase,
  WorkflowActivateMode,
} from 'n8n-workflow';
import { createRunExecutionData, NodeConnectionTypes, Workflow } from 'n8n-workflow';
import { DevDataPollTrigger } from '../../../nodes/DevDataPollTrigger/DevDataPollTrigger.node';
import { PACKAGE_NAME } from '../../helpers/package';
import type { TestCredentials } from './credentials-helper';
import { ManualTrigger, MANUAL_TRIGGER_NODE_TYPE, NodeTypes } from './node-types';
import { additionalDataFor, toRunResult, type RunResult } from './workflow';

export const POLL_TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.devDataPollTrigger`;
export const NO_OP_NODE_TYPE = 'n8n-nodes-base.noOp';
export const POLL_TRIGGER = 'DevData Poll Trigger';
export const NEXT_NODE = 'Create task in your tool';

/** n8n's No Operation node: passes its items on (stands in for what a workflow does with the trigger's items). */
class NoOp implements INodeType {
  description: INodeType['description'] = {
    displayName: 'No Operation, do nothing',
    name: 'noOp',
    group: ['organization'],
    version: 1,
    description: 'No Operation',
    defaults: { name: 'No Operation, do nothing' },
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    properties: [],
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return [this.getInputData()];
  }
}

function nodeTypes(): NodeTypes {
  return new NodeTypes({
    [POLL_TRIGGER_NODE_TYPE]: new DevDataPollTrigger(),
    [NO_OP_NODE_TYPE]: new NoOp(),
    [MANUAL_TRIGGER_NODE_TYPE]: new ManualTrigger(),
  });
}

/** DevData Poll Trigger (version 1 unless said otherwise) → No Operation, as n8n exports it; `parameters` are the trigger's. */
export function pollWorkflow(
  parameters: INodeParameters,
  typeVersion = 1,
): {
  nodes: INode[];
  connections: IWorkflowBase['connections'];
} {
  return {
    nodes: [
      {
        id: 'e5b0c1d2-0001-4a7e-8b43-7f0a7b1c0001',
        name: POLL_TRIGGER,
        type: POLL_TRIGGER_NODE_TYPE,
        typeVersion,
        position: [0, 0],
        // What n8n stores for a polling node: its Poll Times besides its own parameters.
        parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, ...parameters },
        credentials: { devDataApi: { id: 'cred-1', name: 'DevData Developer API' } },
      },
      {
        id: 'e5b0c1d2-0002-4a7e-8b43-7f0a7b1c0002',
        name: NEXT_NODE,
        type: NO_OP_NODE_TYPE,
        typeVersion: 1,
        position: [220, 0],
        parameters: {},
      },
    ],
    connections: { [POLL_TRIGGER]: { main: [[{ node: NEXT_NODE, type: 'main', index: 0 }]] } },
  };
}

/** What one tick of the poller did. */
export interface Tick {
  /** The items poll() emitted (one output), or null when it returned null or failed. */
  items: IDataObject[] | null;
  /** The error the tick ended with (handed to __emitError), if any. */
  error: Error | null;
  /** The execution the emitted items started, once finished. */
  execution?: RunResult;
}

export interface ActivePollingWorkflow {
  /** Activates the workflow: n8n's test poll at activation. Throws when poll() throws, as activation fails then. */
  activate(): Promise<Tick>;
  /** One scheduled poll. */
  tick(): Promise<Tick>;
  /** n8n restarts: the workflow is built again from the saved static data and activated with 'init'. */
  restart(): Promise<Tick>;
  /** The user changes the trigger's parameters of the active workflow and saves: n8n activates it with 'update'. */
  update(parameters: INodeParameters): Promise<Tick>;
  /** The trigger node's static data on the Workflow object in memory. */
  nodeStaticData(): IDataObject;
  /** The static data n8n last saved to its database (a copy). */
  savedStaticData(): IDataObject;
  /** Every batch of items the trigger emitted since it was first activated, in order. */
  emitted(): IDataObject[][];
  /** Changes the credential data, e.g. to another developer key of the same user. */
  setCredentials(credentials: TestCredentials): void;
}

export interface PollingOptions {
  /** The budget n8n gives one poll (IPollFunctions.getPollBudgetMs); n8n-core's default (5 minutes) if not set. */
  pollBudgetMs?: number;
  /** n8n's durable poll cursors: a poll that emitted nothing saves what it stored too. Off, as in n8n. */
  durableCursors?: boolean;
  /** The trigger's node version (1 unless said otherwise). */
  typeVersion?: number;
  /** The static data n8n saved for the workflow before (as an earlier version of the trigger stored it, say). */
  savedStaticData?: IDataObject;
}

const plain = (data: IDataObject): IDataObject => JSON.parse(JSON.stringify(data)) as IDataObject;

/** A workflow "DevData Poll Trigger (parameters) → No Operation" as an n8n instance runs it while active. */
export function activePollingWorkflow(
  parameters: INodeParameters,
  credentials: TestCredentials,
  options: PollingOptions = {},
): ActivePollingWorkflow {
  const json = pollWorkflow(parameters, options.typeVersion);
  const workflowData: IWorkflowBase = {
    id: `wf-${randomUUID().slice(0, 8)}`,
    name: 'DevData poll',
    active: true,
    isArchived: false,
    activeVersionId: null,
    nodes: json.nodes,
    connections: json.connections,
    settings: { executionOrder: 'v1' },
    staticData: {},
    createdAt: new Date(),
    updatedAt: new Date(),
  };
  const types = nodeTypes();
  // One object, read per request by the credentials helper, so a changed credential applies to the next poll.
  const currentCredentials: TestCredentials = { ...credentials };
  let saved: IDataObject = plain(options.savedStaticData ?? {});
  const emitted: IDataObject[][] = [];
  let workflow: Workflow;
  let execute: ((testingTrigger?: boolean) => Promise<void>) | undefined;
  let outcome: { items: INodeExecutionData[][] | null; error: Error | null; execution?: Promise<IRun> };

  const saveStaticData = () => {
    if (workflow.staticData.__dataChanged === true) {
      saved = plain(workflow.staticData);
      workflow.staticData.__dataChanged = false;
    }
  };

  const build = () => {
    workflow = new Workflow({
      id: workflowData.id,
      name: workflowData.name,
      nodes: workflowData.nodes,
      connections: workflowData.connections,
      settings: workflowData.settings,
      staticData: plain(saved),
      active: true,
      nodeTypes: types,
    });
  };

  const activateWith = async (activation: WorkflowActivateMode) => {
    build();
    const node = workflow.getNode(POLL_TRIGGER) as INode;
    const additionalData = () => additionalDataFor(workflowData, currentCredentials, randomUUID());
    const context = new PollContext(
      workflow,
      node,
      additionalData(),
      'trigger',
      activation,
      // __emit: save the static data, then run the workflow from the trigger with the items.
      (data) => {
        saveStaticData();
        emitted.push(data[0].map((item) => item.json));
        outcome.items = data;
        const runExecutionData = createRunExecutionData({
          executionData: { nodeExecutionStack: [{ node, data: { main: data }, source: null }] },
        });
        outcome.execution = new WorkflowExecute(
          additionalData(),
          'trigger',
          runExecutionData,
        ).processRunExecutionData(workflow);
      },
      // __emitError: the tick failed.
      (error) => {
        outcome.error = error;
      },
      // __commitCursor, after a poll that emitted nothing: saves only with durable poll cursors.
      async () => {
        if (options.durableCursors) saveStaticData();
      },
      undefined,
      undefined,
      options.pollBudgetMs === undefined ? undefined : () => options.pollBudgetMs as number,
    );
    execute = Container.get(PollTriggerExecutor).create(workflow, node, context, () => true);
    outcome = { items: null, error: null };
    await execute(true);
    saveStaticData();
    return await settle();
  };

  const settle = async (): Promise<Tick> => {
    const run = outcome.execution ? toRunResult(await outcome.execution) : undefined;
    return {
      items: outcome.items ? outcome.items[0].map((item) => item.json) : null,
      error: outcome.error,
      execution: run,
    };
  };

  return {
    activate: async () => activateWith('activate'),
    restart: async () => activateWith('init'),
    update: async (parameters) => {
      workflowData.nodes = pollWorkflow(parameters, options.typeVersion).nodes;
      return await activateWith('update');
    },
    tick: async () => {
      if (!execute) throw new Error('Activate the workflow first');
      outcome = { items: null, error: null };
      await execute();
      return await settle();
    },
    nodeStaticData: () => plain(workflow.getStaticData('node', workflow.getNode(POLL_TRIGGER) as INode)),
    savedStaticData: () => plain(saved),
    emitted: () => [...emitted],
    setCredentials: (next) => {
      for (const type of Object.keys(currentCredentials)) delete currentCredentials[type];
      Object.assign(currentCredentials, next);
    },
  };
}

/** Runs the workflow by hand ("Execute workflow"), as n8n does: the trigger's poll() in manual mode. */
export async function runPollManually(
  parameters: INodeParameters,
  credentials: TestCredentials,
  staticData: IDataObject = {},
  typeVersion = 1,
): Promise<{ result: RunResult; staticData: IDataObject }> {
  const json = pollWorkflow(parameters, typeVersion);
  const workflowData: IWorkflowBase = {
    id: 'manual-poll',
    name: 'DevData poll (manual)',
    active: false,
    isArchived: false,
    activeVersionId: null,
    nodes: json.nodes,
    connections: json.connections,
    settings: { executionOrder: 'v1' },
    createdAt: new Date(),
    updatedAt: new Date(),
  };
  const workflow = new Workflow({
    id: workflowData.id,
    name: workflowData.name,
    nodes: workflowData.nodes,
    connections: workflowData.connections,
    settings: workflowData.settings,
    staticData: plain(staticData),
    active: false,
    nodeTypes: nodeTypes(),
  });
  const additionalData = additionalDataFor(workflowData, credentials, randomUUID());
  const run = await new WorkflowExecute(additionalData, 'manual').run({ workflow });
  return { result: toRunResult(run), staticData: plain(workflow.staticData) };
}
