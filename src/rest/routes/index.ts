// Every /v1 route, in one list: the router registers them and the OpenAPI document describes them.
// Each resource's routes live in their own module beside this one; add a module's list here.
import type { RouteDef } from '../route.js';
import { organizationRoutes } from './organizations.js';

export const allRoutes: readonly RouteDef[] = [
  ...organizationRoutes,
];
