import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../shared';
import type { BatchOperation } from './types';
import { errorItem } from './utils';

export interface BatchSpec {
  /** The batch endpoint, e.g. `/v1/dev/user/action-items/batch`. */
  path: string;
  /** The array's key in the request and the response body, e.g. `action_items`. */
  key: string;
  /** The endpoint's largest batch. */
  maxPerRequest: number;
  /** Builds the entry for one input item from the node's parameters. */
  toEntry(this: IExecuteFunctions, itemIndex: number): IDataObject;
  /** The endpoint answers only how many it wrote (`{created_count}`): each output item is its entry as sent. */
  answersCount?: boolean;
}

interface Entry {
  itemIndex: number;
  body: IDataObject;
}

/**
 * A batch's failure when the batches before it, the first `written` input items, were created: they stay, and the
 * error says so, since running the node again would create them a second time.
 */
function withEarlierBatches(error: unknown, written: number): unknown {
  if (written === 0 || !(error instanceof NodeApiError || error instanceof NodeOperationError)) return error;
  const created = written === 1 ? 'Input item 0 was' : `Input items 0–${written - 1} were`;
  error.description = [
    `${created} created before this batch failed, and stay created: running the node again creates them again (with Continue On Fail they are in the output).`,
    error.description,
  ]
    .filter(Boolean)
    .join(' ');
  return error;
}

/**
 * Creates one record per input item in as few requests as the endpoint allows, sent one after another in
 * input order. Each output item is the created record (or the entry as sent, where the endpoint answers a count),
 * paired with the input item it came from. The server
 * writes a batch all-or-nothing, so when a batch fails, Continue On Fail marks every item of that batch, with the
 * error as `named` gives it (the refused fields named as the user sees them).
 */
export async function createInBatches(
  this: IExecuteFunctions,
  items: INodeExecutionData[],
  spec: BatchSpec,
  named: (error: unknown) => unknown,
): Promise<INodeExecutionData[]> {
  const continueOnFail = this.continueOnFail();
  const results: INodeExecutionData[][] = items.map(() => []);
  const entries: Entry[] = [];

  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    const build = () => entries.push({ itemIndex, body: spec.toEntry.call(this, itemIndex) });
    if (!continueOnFail) {
      build();
      continue;
    }
    try {
      build();
    } catch (error) {
      results[itemIndex] = [errorItem(error as Error, itemIndex)];
    }
  }

  for (let start = 0; start < entries.length; start += spec.maxPerRequest) {
    const batch = entries.slice(start, start + spec.maxPerRequest);
    const send = async () =>
      (await devDataRequest.call(this, {
        method: 'POST',
        path: spec.path,
        body: { [spec.key]: batch.map((entry) => entry.body) },
        itemIndex: batch[0].itemIndex,
        // A 422 for `body.<key>[n]…` names the n-th entry of this batch: report it as its input item.
        batchItemIndex: (loc) =>
          loc[0] === 'body' && loc[1] === spec.key && typeof loc[2] === 'number'
            ? batch[loc[2]]?.itemIndex
            : undefined,
      })) as IDataObject;

    let response: IDataObject;
    if (!continueOnFail) {
      response = await send().catch((error: unknown) => {
        throw withEarlierBatches(error, start);
      });
    } else {
      try {
        response = await send();
      } catch (error) {
        const refusal = named(error) as Error;
        for (const entry of batch) results[entry.itemIndex] = [errorItem(refusal, entry.itemIndex)];
        continue;
      }
    }
    const created = spec.answersCount
      ? batch.map((entry) => entry.body)
      : ((response[spec.key] as IDataObject[] | undefined) ?? []);
    batch.forEach((entry, n) => {
      if (created[n])
        results[entry.itemIndex] = [{ json: created[n], pairedItem: { item: entry.itemIndex } }];
    });
  }

  return results.flat();
}

/**
 * The Create Many operation of `resource`: a notice saying how the input items are batched, the fields each
 * record takes, and createInBatches. `record` names one record as the user reads it, e.g. `action item`.
 */
export function createManyOperation(
  resource: string,
  record: string,
  fields: INodeProperties[],
  batch: BatchSpec,
): BatchOperation {
  return {
    description: updateDisplayOptions({ show: { resource: [resource], operation: ['createMany'] } }, [
      {
        displayName: `Every input item becomes one ${record}. They are sent in batches of up to ${batch.maxPerRequest}, in input order; each output item is ${
          batch.answersCount
            ? `the ${record} as sent (the server answers only a count)`
            : `the created ${record}`
        }, linked to its input item.`,
        name: 'createManyNotice',
        type: 'notice',
        default: '',
      },
      ...fields,
    ]),
    async executeBatch(this: IExecuteFunctions, items: INodeExecutionData[], named) {
      return await createInBatches.call(this, items, batch, named);
    },
  };
}
