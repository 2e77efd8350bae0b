import type { RouteDefinition } from '../route.js';
import { docRoutes } from './doc.js';
import { eventRoutes } from './events.js';
import { icalRoutes } from './ical.js';
import { organizerRoutes } from './organizers.js';
import { termRoutes } from './terms.js';
import { venueRoutes } from './venues.js';

/** Every route of the namespace, in the order /doc lists them. */
export const ROUTES: RouteDefinition[] = [...docRoutes, ...eventRoutes, ...icalRoutes, ...venueRoutes, ...organizerRoutes, ...termRoutes];
