export { devDataRequest, MAX_RETRY_AFTER_SECONDS } from './request';
export type { DevDataRequest } from './request';
export { cursorPaginate, offsetPaginate } from './pagination';
