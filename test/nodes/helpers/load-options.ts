// Runs the DevData node's dropdown methods the way n8n's editor does (DynamicNodeParametersService in n8n's CLI,
// not a package we can import): n8n-core's LoadOptionsContext over a workflow holding the node and its
// credential, with the method called on it.
import { LoadOptionsContext } from 'n8n-core';
import type { INodeListSearchResult, INodeParameters, INodePropertyOptions } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { DevData } from '../../../nodes/DevData/DevData.node';
import type { TestCredentials } from './credentials-helper';
import { devDataWorkflow, NODE } from './devdata';
import { NodeTypes } from './node-types';
import { additionalDataFor } from './workflow';

function contextFor(parameters: INodeParameters, credentials: TestCredentials, path: string) {
  const json = devDataWorkflow(parameters);
  const workflowData = {
    id: 'load-options',
    name: json.name ?? 'load-options',
    active: false,
    isArchived: false,
    activeVersionId: null,
    nodes: json.nodes,
    connections: json.connections,
    createdAt: new Date(),
    updatedAt: new Date(),
  };
  const workflow = new Workflow({ ...workflowData, nodeTypes: new NodeTypes() });
  const node = workflow.getNode(NODE)!;
  return new LoadOptionsContext(
    workflow,
    node,
    additionalDataFor(workflowData, credentials, 'load-options'),
    path,
  );
}

const methods = new DevData().methods;

/** A "From List" search of a resource locator, as the editor runs it while the user types and scrolls. */
export async function listSearch(
  credentials: TestCredentials,
  method: keyof typeof methods.listSearch,
  parameters: INodeParameters,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  const context = contextFor(parameters, credentials, 'parameters');
  return await methods.listSearch[method].call(context, filter, paginationToken);
}

/** The options of a dropdown with `loadOptionsMethod`, as the editor loads them. */
export async function loadOptions(
  credentials: TestCredentials,
  method: keyof typeof methods.loadOptions,
  parameters: INodeParameters,
): Promise<INodePropertyOptions[]> {
  const context = contextFor(parameters, credentials, 'parameters');
  return await methods.loadOptions[method].call(context);
}
