import {
  RestChangesDocument,
  RestChangesWithDataDocument,
  type RestCategoryFragment,
  type RestChangesWithDataQuery,
  type RestEventFragment,
  type RestOrganizerFragment,
  type RestTagFragment,
  type RestVenueFragment,
} from '../../read/operations/generated/graphql.js';
import { termToTec, utcWallClock } from '../../read/serialize.js';
import type { RestUrls } from '../../urls.js';
import { perPageParam, type ParamDeclaration } from '../params.js';
import { endpoint, READABLE, type RouteDefinition } from '../route.js';
import { eventAsListed } from './events.js';
import { linkedPostForReaders } from './linked-posts.js';
import { organizerKind } from './organizers.js';
import { venueKind } from './venues.js';

// GET /changes: the change feed for incremental sync (GraphQL `changes`). An unknown or expired cursor answers 410
// rest_changes_resync_required (src/rest/errors.ts) with a fresh cursor in `data.next`. With `include_data`, each
// change carries the record as the lists show it to the caller, so a replica applies a page without a request per
// change (as Google Calendar's sync answers).

const changesParams = {
  since: { type: 'string', nonEmpty: true, description: 'changes.since' },
  per_page: perPageParam,
  include_data: { type: 'boolean', default: false, description: 'changes.include_data' },
} satisfies ParamDeclaration;

type ChangeOfPage = RestChangesWithDataQuery['changes']['nodes'][number];
type ChangedRecord = NonNullable<ChangeOfPage['node']>;

/** A changed record as its own list shows it to the caller (its kind is the change's `type`). */
function listed(urls: RestUrls, type: ChangeOfPage['type'], record: ChangedRecord): unknown {
  switch (type) {
    case 'EVENT':
      return eventAsListed(urls, record as RestEventFragment);
    case 'VENUE':
      return linkedPostForReaders(venueKind, urls, record as RestVenueFragment);
    case 'ORGANIZER':
      return linkedPostForReaders(organizerKind, urls, record as RestOrganizerFragment);
    case 'CATEGORY':
      return termToTec(urls, 'categories', record as RestCategoryFragment);
    case 'TAG':
      return termToTec(urls, 'tags', record as RestTagFragment);
  }
}

export const changesRoutes: RouteDefinition[] = [
  {
    pattern: '/changes',
    endpoints: [
      endpoint({
        methods: READABLE,
        params: changesParams,
        async handle(call) {
          const variables = { since: call.params.since ?? null, first: call.params.per_page! };
          const { changes } = call.params.include_data
            ? await call.run(RestChangesWithDataDocument, variables)
            : await call.run(RestChangesDocument, variables);
          return {
            body: {
              changes: changes.nodes.map((change) => ({
                type: change.type.toLowerCase(),
                id: change.id,
                action: change.action.toLowerCase(),
                modified_utc: utcWallClock(change.modifiedAt),
                ...('node' in change
                  ? { data: change.node ? listed(call.urls, change.type, change.node as ChangedRecord) : null }
                  : {}),
              })),
              next: changes.next,
              more: changes.more,
            },
          };
        },
      }),
    ],
  },
];
