// Every /v1 route, in one list: the router registers them and the OpenAPI document describes them.
// Each resource's routes live in their own module beside this one; add a module's list here.
import type { RouteDef } from '../route.js';
import { templateRoutes } from './templates.js';
import { botRoutes } from './bots.js';
import { organizationRoutes } from './organizations.js';
import { phoneNumberRoutes } from './phoneNumbers.js';
import { insuranceRoutes } from './insurances.js';
import { callRequestRoutes } from './callRequests.js';
import { conversationRoutes } from './conversations.js';
import { closureRoutes } from './closures.js';
import { officeHoursRoutes } from './officeHours.js';
import { specialHoursRoutes } from './specialHours.js';
import { availabilityRoutes } from './availability.js';
import { eventRoutes } from './events.js';
import { webhookEndpointRoutes } from './webhookEndpoints.js';
import { apiKeyRoutes } from './apiKeys.js';
import { oauthClientRoutes } from './oauthClients.js';

export const allRoutes: readonly RouteDef[] = [
  ...templateRoutes,
  ...botRoutes,
  ...organizationRoutes,
  ...phoneNumberRoutes,
  ...insuranceRoutes,
  ...callRequestRoutes,
  ...conversationRoutes,
  ...closureRoutes,
  ...officeHoursRoutes,
  ...specialHoursRoutes,
  ...availabilityRoutes,
  ...eventRoutes,
  ...webhookEndpointRoutes,
  ...apiKeyRoutes,
  ...oauthClientRoutes,
];
