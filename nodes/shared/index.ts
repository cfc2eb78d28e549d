// What every DevData node imports: the transport (requests with the node's credential, pagination, error mapping
// and Retry-After handling) and the option lists more than one node offers.
export { devDataRequest, MAX_RETRY_AFTER_SECONDS } from './request';
export type { DevDataRequest, DevDataRequestContext } from './request';
export { cursorPaginate, offsetPaginate } from './pagination';
export {
  devDataApiError,
  foreignAnswerError,
  isForeignAnswer,
  issueAt,
  itemMessage,
  refusedTriggerUrlError,
  withWaitAdvice,
} from './errors';
export { appIdOf, type DevDataCredentialType } from './credentials';
export { MEMORY_CATEGORY_OPTIONS } from './memory-categories';
export { listValues } from './list-values';
export { firstDelivery, SIGNATURE_TOLERANCE_SECONDS } from './signed-calls';
