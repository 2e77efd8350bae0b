/** Every connection's page: this many records when the client gives no `first`/`last`, and at most the maximum. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
