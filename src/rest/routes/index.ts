// Every /v1 route, in one list: the router registers them and the OpenAPI document describes them.
// Each resource's routes live in their own module beside this one; add a module's list here.
import type { RouteDef } from '../route.js';
import { templateRoutes } from './catalog/templates.js';
import { botRoutes } from './catalog/bots.js';
import { organizationRoutes } from './organizations/organizations.js';
import { phoneNumberRoutes } from './catalog/phoneNumbers.js';
import { insuranceRoutes } from './catalog/insurances.js';
import { callRequestRoutes } from './calls/callRequests.js';
import { conversationRoutes } from './calls/conversations.js';
import { callingPolicyRoutes } from './calls/callingPolicy.js';
import { retentionRoutes } from './governance/retention.js';
import { redactionPolicyRoutes } from './governance/redactionPolicy.js';
import { suppressionRoutes } from './calls/suppressions.js';
import { callBatchRoutes } from './calls/callBatches.js';
import { closureRoutes } from './schedule/closures.js';
import { officeHoursRoutes } from './schedule/officeHours.js';
import { specialHoursRoutes } from './schedule/specialHours.js';
import { availabilityRoutes } from './schedule/availability.js';
import { locationRoutes } from './schedule/locations.js';
import { eventRoutes } from './events/events.js';
import { webhookEndpointRoutes } from './events/webhookEndpoints.js';
import { apiKeyRoutes } from './credentials/apiKeys.js';
import { oauthClientRoutes } from './credentials/oauthClients.js';
import { accessLogRoutes } from './governance/accessLog.js';
import { erasureRoutes } from './calls/erasure.js';

export const allRoutes: readonly RouteDef[] = [
  ...templateRoutes,
  ...botRoutes,
  ...organizationRoutes,
  ...locationRoutes,
  ...phoneNumberRoutes,
  ...insuranceRoutes,
  ...callRequestRoutes,
  ...conversationRoutes,
  ...callingPolicyRoutes,
  ...retentionRoutes,
  ...redactionPolicyRoutes,
  ...suppressionRoutes,
  ...callBatchRoutes,
  ...closureRoutes,
  ...officeHoursRoutes,
  ...specialHoursRoutes,
  ...availabilityRoutes,
  ...eventRoutes,
  ...webhookEndpointRoutes,
  ...apiKeyRoutes,
  ...oauthClientRoutes,
  ...accessLogRoutes,
  ...erasureRoutes,
];
