// Imports every type module (each registers its types, queries and mutations) and builds the schema.
import { builder } from '../builder.js';
import { withRateLimits } from '../rateLimits.js';
import { withStorableArguments } from '../storableArguments.js';
import './organizations/organization.js';
import './catalog/phoneNumber.js';
import './catalog/insurance.js';
import './calls/callRequest.js';
import './calls/conversation.js';
import './calls/callingPolicy.js';
import './calls/suppressions.js';
import './calls/erasure.js';
import './calls/callBatch.js';
import './catalog/template.js';
import './catalog/bot.js';
import './schedule/closure.js';
import './schedule/officeHours.js';
import './schedule/specialHours.js';
import './schedule/availability.js';
import './events/event.js';
import './events/webhook.js';
import './credentials/apiKey.js';
import './credentials/oauthClient.js';
import './governance/accessLog.js';
import './governance/retention.js';
import './governance/redactionPolicy.js';
import './node.js';

// every root field counts against its REST twin's rate-limit budget (graphql/rateLimits.ts), then every
// argument is checked to be storable text (graphql/storableArguments.ts) before a resolver reads it
export const schema = withRateLimits(withStorableArguments(builder.toSchema({ sortSchema: true })));
