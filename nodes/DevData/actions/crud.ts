import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../transport';
import { recordId } from './common.description';
import type { ItemOperation } from './types';

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
}

/** `DELETE <path>/<id>`: the operation every resource with a delete has, answering `{success: true}`. */
export function deleteById(spec: RecordSpec): ItemOperation {
  return {
    description: updateDisplayOptions({ show: { resource: [spec.resource], operation: ['delete'] } }, [
      recordId(spec.idName, spec.label, spec.searchListMethod),
    ]),
    async execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
      const id = this.getNodeParameter(spec.idName, itemIndex, '', { extractValue: true }) as string;
      return (await devDataRequest.call(this, {
        method: 'DELETE',
        path: `${spec.path}/${encodeURIComponent(id)}`,
        itemIndex,
        resource: sentenceCase(spec.label),
        id,
      })) as IDataObject;
    },
  };
}

/**
 * `PATCH <path>/<id>` with only the fields the user added under Update Fields (a partial update); `toWire` maps
 * the node's field names to the server's where they differ.
 */
export function updateById(
  spec: RecordSpec,
  fields: INodeProperties[],
  toWire: (fields: IDataObject) => IDataObject = (fields) => fields,
): ItemOperation {
  return {
    description: updateDisplayOptions({ show: { resource: [spec.resource], operation: ['update'] } }, [
      recordId(spec.idName, spec.label, spec.searchListMethod),
      {
        displayName: 'Update Fields',
        name: 'updateFields',
        type: 'collection',
        placeholder: 'Add Field',
        default: {},
        description: 'Only the fields added here are changed',
        options: fields,
      },
    ]),
    async execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
      const id = this.getNodeParameter(spec.idName, itemIndex, '', { extractValue: true }) as string;
      return (await devDataRequest.call(this, {
        method: 'PATCH',
        path: `${spec.path}/${encodeURIComponent(id)}`,
        body: toWire(this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject),
        itemIndex,
        resource: sentenceCase(spec.label),
        id,
      })) as IDataObject;
    },
  };
}

/** `Action Item` → `Action item`, as the server names records in its 404 details. */
export function sentenceCase(label: string): string {
  return label.charAt(0) + label.slice(1).toLowerCase();
}
