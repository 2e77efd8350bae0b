import type { RouteDefinition } from '../route.js';
import { changesRoutes } from './changes.js';
import { docRoute } from './doc.js';
import { eventRoutes } from './events.js';
import { icalRoutes } from './ical.js';
import { organizerRoutes } from './organizers.js';
import { termRoutes } from './terms.js';
import { venueRoutes } from './venues.js';

/** Every route of the namespace, in the order /doc lists them (the doc route documents the table it is part of). */
export const ROUTES: RouteDefinition[] = [
  docRoute(() => ROUTES),
  ...eventRoutes,
  ...icalRoutes,
  ...venueRoutes,
  ...organizerRoutes,
  ...termRoutes,
  ...changesRoutes,
];
