import type { Config } from '../config.js';
import type { Context } from '../graphql/builder.js';
import {
  isRefusal,
  type RequestContexts,
  type RequestScope,
  type SignInRefusal,
  signInRefusalMessage,
} from '../read/request-contexts.js';
import type { RequestLog } from '../logging/logger.js';
import { type PageRecord, pageRecordOf, restUrls } from '../urls.js';
import { PageRefusal } from './data.js';
import { eventPage } from './event-page.js';
import { eventsListPage } from './events-list-page.js';
import { html } from './html.js';
import { htmlResponse, pageDocument } from './layout.js';
import { EVENTS_LIST, pagePathOf, sitePaths, type SitePaths } from './paths.js';
import { organizerPage, venuePage } from './linked-post-page.js';
import { termPage } from './term-page.js';

// The public pages the API's `url` fields point at, rendered on the server as plain HTML.

const LIST_PAGE = new RegExp(`^/${EVENTS_LIST}/?$`);
const ALLOWED = 'GET, HEAD';

/** What a page path asks for, or null when the path is not a page's. */
type PageRoute = PageRecord | { kind: 'list' };

function routeOf(path: string): PageRoute | null {
  return LIST_PAGE.test(path) ? { kind: 'list' } : pageRecordOf(path);
}

/** Refused credentials, as a page. */
function refusedCredentials(refusal: SignInRefusal): PageRefusal {
  const message = signInRefusalMessage(refusal);
  if (refusal.refused === 'invalid') return new PageRefusal(401, 'Not signed in', message);
  return new PageRefusal(429, 'Too many attempts', message, { 'retry-after': String(refusal.retryAfter) });
}

function refusalPage(paths: SitePaths, refusal: PageRefusal): Response {
  const document = pageDocument(paths, {
    title: refusal.heading,
    body: html`<h1>${refusal.heading}</h1><p>${refusal.message}</p>`,
  });
  return htmlResponse(document, refusal.status, refusal.headers);
}

/**
 * The public pages' handler. `contexts` signs the request in (credentials that are refused are answered with a
 * refusal page) and gives its GraphQL context, so a page shows what the API would show the same viewer.
 */
export function createPageHandler(config: Config, contexts: RequestContexts) {
  const paths = sitePaths(config);
  const urls = restUrls(config);

  async function render(route: PageRoute, url: URL, context: Context): Promise<string> {
    if (route.kind === 'list') return eventsListPage(url, context, paths);
    if (!route.slug) throw PageRefusal.notFound();
    if (route.kind === 'term') return termPage(route.taxonomy, route.slug, url, context, paths);
    if (route.kind === 'event') return eventPage(route.slug, context, paths, urls);
    if (route.kind === 'venue') return venuePage(route.slug, context, paths);
    return organizerPage(route.slug, context, paths);
  }

  return {
    /** What a URL asks of the pages, or null when its path is not a page's. */
    routeOf: (url: URL): PageRoute | null => routeOf(pagePathOf(url.pathname, paths.base)),

    /** Answers a request for a page, at the `route` routeOf found in its `url`. */
    async answer(request: Request, url: URL, route: PageRoute, log: RequestLog, scope: RequestScope) {
      try {
        if (request.method !== 'GET')
          throw new PageRefusal(405, 'Method not allowed', 'Pages are only read.', { Allow: ALLOWED });
        const context = await contexts.contextFor(request, scope);
        if (isRefusal(context)) throw refusedCredentials(context);
        return htmlResponse(await render(route, url, context));
      } catch (error) {
        if (error instanceof PageRefusal) return refusalPage(paths, error);
        log.unexpected(error);
        return refusalPage(
          paths,
          new PageRefusal(500, 'Something went wrong', 'The page could not be shown. Try again later.'),
        );
      }
    },
  };
}
