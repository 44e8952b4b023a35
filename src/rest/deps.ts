// What the /v1 routes use of the app's deps (src/deps.ts's AppDeps holds every folder's): the domain's (the
// routes call every context, the schedule's too, and the webhooks' host lookup and job queue),
// authentication's, the budgets, and the transport's request fields.
import type { AuthDeps } from '../auth/deps.js';
import type { WebhookDeps } from '../domain/events/webhookEndpoints.js';
import type { ScheduleDeps } from '../domain/schedule/deps.js';
import type { HttpDeps } from '../http/deps.js';
import type { ReadModel } from '../readmodel/readModel.js';

export interface RestDeps extends ScheduleDeps, Pick<WebhookDeps, 'resolveHost' | 'jobs'>, AuthDeps, HttpDeps {
  /** The whole read model: authentication's reads and the domain's. */
  readModel: ReadModel;
}

// the request's deps (http/appEnv.ts) are the app's, which hold these: the router hands them to the route
declare module '../http/appEnv.js' {
  interface RequestDeps extends RestDeps {}
}
