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
export {
  DEVDATA_EVENT_TRIGGER_NODE_TYPE,
  DEVDATA_NODE_TYPE,
  DEVDATA_TRIGGER_NODE_TYPE,
  MANUAL_TRIGGER_NODE_TYPE,
  ManualTrigger,
  NodeTypes,
} from './node-types';
export { listSearch, loadOptions } from './load-options';
export { additionalDataFor, runWorkflow, toRunResult, type RunResult, type WorkflowJson } from './workflow';
export {
  appCredentials,
  post,
  proactiveWorkflow,
  REPLY_NODE,
  signature,
  TRIGGER_NODE,
  TRIGGER_WEBHOOK_ID,
  type PostedReply,
  type ProactiveWorkflowOptions,
} from './proactive';
export { serveWorkflow, type ServedWorkflow, type ServeOptions, type WebhookCall } from './webhook';
export { FOREIGN_PAGE, startForeignServer, type ForeignServer } from './foreign-server';
