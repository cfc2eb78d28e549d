export { devDataRequest, MAX_RETRIES, MAX_RETRY_AFTER_SECONDS } from './request';
export type { DevDataCredentialType } from './credentials';
export type { DevDataRequest, DevDataRequestContext } from './request';
export { cursorPaginate, offsetPaginate } from './pagination';
export type { ListRequest } from './pagination';
export { devDataApiError, formatLoc } from './errors';
