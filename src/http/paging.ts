/** Default and maximum page sizes of the paged lists (contract §4). */
export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;
