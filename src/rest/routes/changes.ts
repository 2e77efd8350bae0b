import { RestChangesDocument } from '../../read/operations/generated/graphql.js';
import { endpoint, READABLE, type RouteDefinition } from '../route.js';
import { utcWallClock } from '../../read/serialize.js';
import { perPageParam, type ParamDeclaration } from '../params.js';

// GET /changes: the change feed for incremental sync (GraphQL `changes`). An unknown or expired cursor answers 410
// rest_changes_resync_required (src/rest/errors.ts) with a fresh cursor in `data.next`.

const changesParams = {
  since: { type: 'string', nonEmpty: true, description: 'changes.since' },
  per_page: perPageParam,
} satisfies ParamDeclaration;

export const changesRoutes: RouteDefinition[] = [
  {
    pattern: '/changes',
    endpoints: [
      endpoint({
        methods: READABLE,
        params: changesParams,
        async handle(call) {
          const { changes } = await call.run(RestChangesDocument, {
            since: call.params.since ?? null,
            first: call.params.per_page!,
          });
          return {
            body: {
              changes: changes.nodes.map((change) => ({
                type: change.type.toLowerCase(),
                id: change.id,
                action: change.action.toLowerCase(),
                modified_utc: utcWallClock(change.modifiedAt),
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
