// Runs a credential type's `test` request the way n8n's credentials dialog does ("Retry"/"Save" runs
// CredentialsTester in n8n's CLI, which is not a package we can import): a throw-away node whose one property
// routes the test request, executed by n8n-core's RoutingNode with the typed-in credential data; a failed
// request becomes the first matching `responseCode` rule's message, or the HTTP status text, and a request that got
// no answer its error code (as n8n 2.41's CredentialsTester.runRequestTest does). A 2xx then meets the
// `responseSuccessBody` rules as there: the first whose `key` (lodash `get` on the first output item's json) equals
// its `value` fails the test with its message.
import { ExecuteContext, RoutingNode } from 'n8n-core';
import type {
  ICredentialDataDecryptedObject,
  INode,
  INodeCredentialTestResult,
  INodeExecutionData,
  INodeType,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';
import { CREDENTIAL_TYPES } from './credentials-helper';
import { NodeTypes } from './node-types';
import { additionalDataFor } from './workflow';

/** lodash's `get` for a dot path (what the rules here use): a string's characters are its indexes, as there. */
function lodashGet(value: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (at, key) => (at === null || at === undefined ? undefined : (at as Record<string, unknown>)[key]),
      value,
    );
}

export async function testCredential(
  type: string,
  data: ICredentialDataDecryptedObject,
): Promise<INodeCredentialTestResult> {
  const credentialType = CREDENTIAL_TYPES[type];
  const testRequest = credentialType.test;
  if (!testRequest) return { status: 'Error', message: 'No testing function found for this credential.' };

  const nodeType: INodeType = {
    description: {
      displayName: 'Temp',
      name: 'temp',
      group: [],
      version: 1,
      description: '',
      defaults: {},
      inputs: [],
      outputs: [],
      credentials: [{ name: type, required: true }],
      properties: [
        {
          displayName: 'Temp',
          name: 'temp',
          type: 'string',
          routing: { request: testRequest.request },
          default: '',
        },
      ],
    },
  };
  const node: INode = {
    id: 'temp',
    name: 'Temp-Node',
    type: 'temp',
    typeVersion: 1,
    position: [0, 0],
    parameters: {},
    credentials: { [type]: { id: 'temp', name: 'Temp' } },
  };
  const workflow = new Workflow({
    nodes: [node],
    connections: {},
    active: false,
    nodeTypes: new NodeTypes({ temp: nodeType }),
  });
  const additionalData = additionalDataFor(
    {
      id: 'temp',
      name: 'temp',
      active: false,
      isArchived: false,
      activeVersionId: null,
      nodes: [node],
      connections: {},
      createdAt: new Date(),
      updatedAt: new Date(),
    },
    { [type]: data },
    'credential-test',
  );
  const context = new ExecuteContext(
    workflow,
    node,
    additionalData,
    'internal',
    createRunExecutionData(),
    0,
    [],
    { main: [[{ json: {} }]] },
    { node, data: {}, source: null },
    [],
  );
  let response: INodeExecutionData[][] | null | undefined;
  try {
    response = await new RoutingNode(context, nodeType, { id: 'temp', name: 'Temp', type, data }).runNode();
  } catch (error) {
    const response = (error as { cause?: { response?: { status: number; statusText?: string } } }).cause
      ?.response;
    if (response) {
      for (const rule of testRequest.rules ?? []) {
        if (rule.type === 'responseCode' && rule.properties.value === response.status) {
          return { status: 'Error', message: rule.properties.message };
        }
      }
      return {
        status: 'Error',
        message: response.statusText || `Received HTTP status code: ${response.status}`,
      };
    }
    const code = (error as { cause?: { code?: string } }).cause?.code;
    return { status: 'Error', message: code ?? (error as Error).message };
  }
  for (const rule of testRequest.rules ?? []) {
    if (rule.type !== 'responseSuccessBody') continue;
    // As n8n reads it, without a guard: a 2xx whose output has no first item fails here, as it does in n8n.
    const json: unknown = response![0][0].json;
    if (lodashGet(json, rule.properties.key) === rule.properties.value) {
      return { status: 'Error', message: rule.properties.message };
    }
  }
  return { status: 'OK', message: 'Connection successful!' };
}
