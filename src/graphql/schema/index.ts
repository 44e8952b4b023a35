// Imports every type module (each registers its types, queries and mutations) and builds the schema.
import { builder } from '../builder.js';
import { withRateLimits } from '../rateLimits.js';
import { withStorableArguments } from '../storableArguments.js';
import './organization.js';
import './phoneNumber.js';
import './insurance.js';
import './callRequest.js';
import './conversation.js';
import './template.js';
import './bot.js';
import './closure.js';
import './officeHours.js';
import './specialHours.js';
import './availability.js';
import './event.js';
import './webhook.js';
import './apiKey.js';
import './oauthClient.js';

// every root field counts against its REST twin's rate-limit budget (graphql/rateLimits.ts), then every
// argument is checked to be storable text (graphql/storableArguments.ts) before a resolver reads it
export const schema = withRateLimits(withStorableArguments(builder.toSchema({ sortSchema: true })));
