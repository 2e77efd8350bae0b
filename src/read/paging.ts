/** A numbered page (WordPress's `page` and `per_page`) as `first` and an in-process offset, for REST and the pages. */
export { pageVariables as pageWindow } from '../graphql/shared/connections.js';
