import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/** An operation that runs once per input item; the router pairs its output with that item. */
export interface ItemOperation {
  description: INodeProperties[];
  execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
}

/**
 * An operation that takes every input item at once (Create Many) and pairs its output items itself. `named` adds
 * to a server's refusal the operation's parameters it names, for the error items it puts out with Continue On Fail.
 */
export interface BatchOperation {
  description: INodeProperties[];
  executeBatch(
    this: IExecuteFunctions,
    items: INodeExecutionData[],
    named: (error: unknown) => unknown,
  ): Promise<INodeExecutionData[]>;
}

export type Operation = ItemOperation | BatchOperation;

/**
 * The operations each resource offers in its Operation dropdown. The router maps every one of them to the code
 * that runs it, so an operation without code fails to compile.
 */
export interface ResourceOperations {
  actionItem: 'create' | 'createMany' | 'delete' | 'getAll' | 'update';
  conversation: 'createFromSegments' | 'createFromText' | 'delete' | 'get' | 'getAll' | 'search' | 'update';
  developerKey: 'create' | 'delete' | 'getAll' | 'getCurrent';
  folder: 'create' | 'delete' | 'getAll' | 'update';
  goal: 'create' | 'delete' | 'get' | 'getAll' | 'getHistory' | 'update' | 'updateProgress';
  liveTranscript: 'addSegments' | 'finish';
  memory: 'create' | 'createMany' | 'delete' | 'getAll' | 'search' | 'update';
  notification: 'getAll' | 'send';
  person: 'create' | 'delete' | 'getAll' | 'update';
  proactiveReply: 'build';
  screenActivity: 'createMany' | 'getAll';
}

/** Every resource's operations, each mapped to the code that runs it. */
export type OperationMap = { [R in keyof ResourceOperations]: Record<ResourceOperations[R], Operation> };
