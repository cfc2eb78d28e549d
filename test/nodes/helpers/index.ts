export { CREDENTIAL_TYPES, CredentialsHelper, type TestCredentials } from './credentials-helper';
export {
  credentialsFor,
  devDataWorkflow,
  jsonOut,
  NODE,
  runDevData,
  startNodeTestServer,
  TRIGGER,
  type DevDataWorkflowOptions,
  type LoggedRequest,
  type NodeTestServer,
} from './devdata';
export { DEVDATA_NODE_TYPE, MANUAL_TRIGGER_NODE_TYPE, ManualTrigger, NodeTypes } from './node-types';
export { additionalDataFor, runWorkflow, type RunResult, type WorkflowJson } from './workflow';
