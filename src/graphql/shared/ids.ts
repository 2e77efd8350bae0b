/** The largest GraphQL Int, and the largest record ID the databases store (PostgreSQL `integer`). */
export const MAX_INT = 2_147_483_647;

/**
 * Whether a number written as an ID (`"42"` in a category or image reference) can name a record. A larger one names
 * none, and must not reach a query: PostgreSQL refuses it there instead of finding nothing.
 */
export const isStorableId = (id: number): boolean => Number.isSafeInteger(id) && id >= 0 && id <= MAX_INT;
