// The node types a test workflow can use: the real DevData node class, and a manual trigger that behaves like
// n8n's own (n8n-nodes-base is not installed here, so it is defined in a few lines, as n8n writes it).
import type {
  IDataObject,
  INodeType,
  INodeTypes,
  ITriggerFunctions,
  ITriggerResponse,
  IVersionedNodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers } from 'n8n-workflow';
import { DevData } from '../../../nodes/DevData/DevData.node';
import { DevDataTranscriptTrigger } from '../../../nodes/DevDataTranscriptTrigger/DevDataTranscriptTrigger.node';
import { DevDataTrigger } from '../../../nodes/DevDataTrigger/DevDataTrigger.node';
import { PACKAGE_NAME } from '../../helpers/package';

/** n8n's Manual Trigger: emits one empty item when a workflow is run by hand. */
export class ManualTrigger implements INodeType {
  description: INodeType['description'] = {
    displayName: 'Manual Trigger',
    name: 'manualTrigger',
    icon: 'fa:mouse-pointer',
    group: ['trigger', 'input'],
    version: 1,
    description: 'Runs the flow on clicking a button in n8n',
    maxNodes: 1,
    defaults: { name: 'When clicking ‘Execute workflow’' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    properties: [],
  };

  async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
    const manualTriggerFunction = async () => {
      this.emit([this.helpers.returnJsonArray([{}])]);
    };
    return { manualTriggerFunction };
  }
}

/** The package's node types under the names n8n gives them (`<package name>.<node name>`). */
export const DEVDATA_NODE_TYPE = `${PACKAGE_NAME}.devData`;
export const DEVDATA_TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.devDataTranscriptTrigger`;
export const DEVDATA_EVENT_TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.devDataTrigger`;
export const MANUAL_TRIGGER_NODE_TYPE = 'n8n-nodes-base.manualTrigger';

export class NodeTypes implements INodeTypes {
  private readonly types: Record<string, INodeType | IVersionedNodeType>;

  constructor(types: Record<string, INodeType | IVersionedNodeType> = defaultTypes()) {
    this.types = types;
  }

  getByName(nodeType: string): INodeType | IVersionedNodeType {
    const type = this.types[nodeType];
    if (!type) throw new Error(`Unknown node type "${nodeType}" in the test registry`);
    return type;
  }

  getByNameAndVersion(nodeType: string, version?: number): INodeType {
    return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
  }

  getKnownTypes(): IDataObject {
    return {};
  }
}

function defaultTypes(): Record<string, INodeType> {
  return {
    [DEVDATA_NODE_TYPE]: new DevData(),
    [DEVDATA_TRIGGER_NODE_TYPE]: new DevDataTranscriptTrigger(),
    [DEVDATA_EVENT_TRIGGER_NODE_TYPE]: new DevDataTrigger(),
    [MANUAL_TRIGGER_NODE_TYPE]: new ManualTrigger(),
  };
}
