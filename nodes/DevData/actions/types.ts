import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/** An operation that runs once per input item; the router pairs its output with that item. */
export interface ItemOperation {
  description: INodeProperties[];
  execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
}

/** An operation that takes every input item at once (Create Many) and pairs its output items itself. */
export interface BatchOperation {
  description: INodeProperties[];
  executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]>;
}

export type Operation = ItemOperation | BatchOperation;
