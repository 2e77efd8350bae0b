// Headers that tell a browser how to treat what this service answers; the pages' and GraphiQL's
// Content-Security-Policy are declared beside their markup (src/pages/layout.ts, src/http/graphiql.ts).

/**
 * Set on every answer, before anything else writes it (src/server.ts `listen`): a browser takes the declared
 * Content-Type and never guesses another, so that no JSON, calendar or error body is ever run as HTML or script.
 */
export const EVERY_ANSWER = { 'x-content-type-options': 'nosniff' } as const;

/**
 * HTML pages link to other sites (event websites, maps): those learn the service's origin from a click, never the
 * page's path and query.
 */
export const REFERRER_POLICY = 'strict-origin-when-cross-origin';
