import { describe, type Language } from '../i18n/index.js';
import type { Param, ParamDeclaration } from '../params.js';
import { NAMESPACE, type RestUrls } from '../../urls.js';
import type { RouteDefinition } from '../route.js';

/** A parameter as the WordPress index lists it: JSON-schema keywords, no callbacks. */
export function argumentSchema(param: Param, language: Language) {
  const base = { required: param.required ?? false, description: describe(param.description, language) };
  switch (param.type) {
    case 'integer':
      return {
        ...base,
        type: 'integer',
        ...(typeof param.default === 'number' ? { default: param.default } : {}),
        ...(param.min !== undefined ? { minimum: param.min } : {}),
        ...(param.clampTo !== undefined ? { maximum: param.clampTo } : {}),
      };
    case 'number':
      return {
        ...base,
        type: 'number',
        ...(param.min !== undefined ? { minimum: param.min } : {}),
        ...(param.max !== undefined ? { maximum: param.max } : {}),
      };
    case 'boolean':
      return { ...base, type: 'boolean', ...(param.default !== undefined ? { default: param.default } : {}) };
    case 'string':
      return {
        ...base,
        type: 'string',
        ...(param.enum ? { enum: [...param.enum] } : {}),
        ...(typeof param.default === 'string' ? { default: param.default } : {}),
      };
    case 'date':
      return { ...base, type: 'string', format: 'date-time' };
    case 'list':
      return { ...base, type: 'array', items: { type: param.items } };
    case 'linked':
      return { ...base, type: ['integer', 'object', 'array'] };
    case 'cost':
      return { ...base, type: ['string', 'array'] };
  }
}

/** One route as WordPress describes it in the index and in answer to OPTIONS: methods, endpoints and their args. */
export function routeEntry(urls: RestUrls, route: RouteDefinition, language: Language) {
  const hasPathVariables = route.pattern.includes('(?P<');
  return {
    namespace: NAMESPACE,
    methods: route.endpoints.flatMap((e) => [...e.methods]),
    endpoints: route.endpoints.map((e) => ({
      methods: [...e.methods],
      args: Object.fromEntries(
        Object.entries(e.params as ParamDeclaration).map(([name, param]) => [name, argumentSchema(param, language)]),
      ),
    })),
    ...(hasPathVariables ? {} : { _links: { self: [{ href: `${urls.root}${NAMESPACE}${route.pattern}` }] } }),
  };
}

/** The namespace index WordPress answers at `/wp-json/<namespace>`. */
export function namespaceIndex(urls: RestUrls, routes: RouteDefinition[], language: Language) {
  const entries = routes.map((route) => [`/${NAMESPACE}${route.pattern}`, routeEntry(urls, route, language)] as const);
  const indexArgs = {
    namespace: { default: NAMESPACE, required: false },
    context: { default: 'view', required: false },
  };
  return {
    namespace: NAMESPACE,
    routes: Object.fromEntries([
      [
        `/${NAMESPACE}`,
        {
          namespace: NAMESPACE,
          methods: ['GET'],
          endpoints: [{ methods: ['GET'], args: indexArgs }],
          _links: { self: [{ href: urls.api }] },
        },
      ],
      ...entries,
    ]),
    _links: { up: [{ href: urls.root }] },
  };
}

/** The site-wide index at `/wp-json/`: this service's namespaces. */
export function siteIndex(urls: RestUrls, routes: RouteDefinition[]) {
  return {
    name: 'Calendar events service',
    url: urls.site,
    home: urls.site,
    namespaces: [NAMESPACE],
    routes: namespaceIndex(urls, routes, 'en').routes,
    _links: { help: [{ href: 'https://developer.wordpress.org/rest-api/' }] },
  };
}
