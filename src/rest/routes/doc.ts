import type { RouteDefinition } from '../route.js';

// Filled by the documentation route (OpenAPI generated from the declarations).
export const docRoutes: RouteDefinition[] = [];
