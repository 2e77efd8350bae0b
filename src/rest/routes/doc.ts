import { openApiDocument } from '../doc/openapi.js';
import type { ParamDeclaration } from '../params.js';
import { endpoint, READABLE, type RouteDefinition } from '../route.js';

const docParams = {
  openapi: { type: 'string', enum: ['3.0', '3.0.0', '3.1', '3.1.0'], default: '3.0', description: 'doc.openapi' },
} satisfies ParamDeclaration;

/**
 * GET /doc: the OpenAPI document of every route of the namespace (`routes()`, the route table that holds this route
 * too), generated from the route declarations, in the language of the URL's language segment. OpenAPI 3.0 by default,
 * as the original; `?openapi=3.1` for 3.1.
 */
export function docRoute(routes: () => readonly RouteDefinition[]): RouteDefinition {
  return {
    pattern: '/doc',
    endpoints: [
      endpoint({
        methods: READABLE,
        params: docParams,
        async handle(call) {
          const version = call.params.openapi?.startsWith('3.1') ? '3.1' : '3.0';
          return {
            body: openApiDocument([...routes()], {
              urls: call.urls,
              language: call.language,
              version,
              license: call.context.config.apiLicense,
            }),
          };
        },
      }),
    ],
  };
}
