import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest, itemMessage, type DevDataRequest } from '../../shared';
import { recordId, updateFields } from './common.description';
import type { ItemOperation } from './types';
import { changesOf, updateFieldsOf } from './utils';

export interface RecordSpec {
  /** The resource value, e.g. `folder`. */
  resource: string;
  /** The record as the user reads it, e.g. `Folder` or `Action Item`. */
  label: string;
  /** The collection path, e.g. `/v1/dev/user/folders`. */
  path: string;
  /** The ID parameter's name, e.g. `folderId`. */
  idName: string;
  /** The list search that offers the user's records of this kind, e.g. `searchFolders`. */
  searchListMethod: string;
  /** The field a model might pass instead of the ID, e.g. `title`; the ID parameter's description names it. */
  nameField?: string;
}

/** The picker of the record an operation addresses. */
export function recordLocator(spec: RecordSpec): INodeProperties {
  return recordId(spec.idName, spec.label, spec.searchListMethod, spec.nameField);
}

/**
 * The request fields that address the record the item picked: its path (with `subPath` below it, e.g.
 * `/history`), and the record's kind and id for a 404 message.
 */
export function addressedRecord(
  this: IExecuteFunctions,
  spec: RecordSpec,
  itemIndex: number,
  subPath = '',
): Pick<DevDataRequest, 'path' | 'itemIndex' | 'resource' | 'id'> {
  const value: unknown = this.getNodeParameter(spec.idName, itemIndex, '', { extractValue: true });
  // An ID that holds nothing (an expression that finds none) would address the collection itself: Get answered
  // the list of records (the server ignores a trailing slash), and every other operation a confusing 404.
  if (value === undefined || value === null || String(value).trim() === '') {
    throw new NodeOperationError(this.getNode(), itemMessage(`${spec.label} ID is empty`, itemIndex), {
      itemIndex,
      description: `Choose the ${spec.label.toLowerCase()} from the list, or give its ID. If it comes from an expression, check what it evaluates to for this item.`,
    });
  }
  const id = String(value);
  return {
    path: `${spec.path}/${encodeURIComponent(id)}${subPath}`,
    itemIndex,
    resource: sentenceCase(spec.label),
    id,
  };
}

/** `DELETE <path>/<id>`: the operation every resource with a delete has, answering `{success: true}`. */
export function deleteById(spec: RecordSpec): ItemOperation {
  return {
    description: updateDisplayOptions({ show: { resource: [spec.resource], operation: ['delete'] } }, [
      recordLocator(spec),
    ]),
    async execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
      return (await devDataRequest.call(this, {
        method: 'DELETE',
        ...addressedRecord.call(this, spec, itemIndex),
      })) as IDataObject;
    },
  };
}

/**
 * `PATCH <path>/<id>` with only the fields the user added under Update Fields (a partial update); `toWire` maps
 * the node's fields to the server's where they differ (and may fail the item).
 */
export function updateById(
  spec: RecordSpec,
  fields: INodeProperties[],
  toWire: (this: IExecuteFunctions, fields: IDataObject, itemIndex: number) => IDataObject = (fields) =>
    fields,
): ItemOperation {
  return {
    description: updateDisplayOptions({ show: { resource: [spec.resource], operation: ['update'] } }, [
      recordLocator(spec),
      updateFields(fields),
    ]),
    async execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
      return (await devDataRequest.call(this, {
        method: 'PATCH',
        ...addressedRecord.call(this, spec, itemIndex),
        body: changesOf.call(
          this,
          toWire.call(this, updateFieldsOf.call(this, itemIndex), itemIndex),
          itemIndex,
        ),
      })) as IDataObject;
    },
  };
}

/** `Action Item` → `Action item`, as the server names records in its 404 details. */
function sentenceCase(label: string): string {
  return label.charAt(0) + label.slice(1).toLowerCase();
}
