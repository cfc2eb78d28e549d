// The transport every DevData node imports: requests with the node's credential, pagination, error mapping and
// Retry-After handling.
export { devDataRequest, MAX_RETRY_AFTER_SECONDS } from './request';
export type { DevDataRequest, DevDataRequestContext } from './request';
export { cursorPaginate, offsetPaginate } from './pagination';
export { devDataApiError } from './errors';
export type { DevDataCredentialType } from './credentials';
