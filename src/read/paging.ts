import { offsetToCursor } from '@pothos/plugin-relay';

/** The `after` cursor that starts a page at `offset`. */
function cursorBefore(offset: number): string | null {
  return offset > 0 ? offsetToCursor(offset - 1) : null;
}

/** A numbered page (WordPress's `page` and `per_page`) as the connection arguments that fetch it. */
export function pageWindow(page: number, perPage: number) {
  return { first: perPage, after: cursorBefore((page - 1) * perPage) };
}
