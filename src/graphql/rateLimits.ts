// GraphQL side of the budgets. How the pieces fit:
//
// 1. `withRateLimits(schema)` wraps every root field of Query and Mutation once, after the schema is
//    built. The wrapper authenticates (the owner must be known), then asks graphql-rate-limit's
//    limiter (`getGraphQLRateLimiter`) about the field, and only then runs the real resolver. Every
//    root field is resolved on its own, so aliases count once each: 3 aliases = 3 hits.
// 2. graphql-rate-limit supplies the field/identity plumbing (identity = the owner's organization,
//    field identity = the REST twin's pattern) and the limit decision `count > max`. Its Store
//    interface is read-then-write (get the timestamps, then set them), which two instances could
//    interleave and both let a request through. So our Store adapter below does NOT keep timestamps:
//    `getForIdentity` performs the one atomic increment of the shared counter store (the same call the
//    REST step makes) and answers the timestamps that make the library decide as the counter did, and the limiter
//    is called `readOnly` so it never writes back. The library's decision therefore equals the atomic
//    counter's: REST and GraphQL share one exact budget, across instances.
// 3. A limited field throws RateLimited → `extensions.code: RATE_LIMITED` + `retryAfter` (graphql/errors.ts);
//    the other fields still resolve. `useRateLimitStatus` turns an operation whose EVERY root field was
//    limited into HTTP 429 with Retry-After.
import { defaultFieldResolver, type ExecutionResult, Kind, type GraphQLError, type DocumentNode, type GraphQLResolveInfo, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import { getGraphQLRateLimiter, type Identity, type Store } from 'graphql-rate-limit';
import type { Plugin } from 'graphql-yoga';
import { RateLimited } from '../domain/errors.js';
import type { GraphQLContext } from './context.js';
import { budgetOfRootField } from './rateLimitTwins.js';
import { limitMessage } from '../ratelimit/http.js';
import type { Budget, RateLimiter } from '../ratelimit/limiter.js';

/** graphql-rate-limit's Store over the atomic counter store (see 2. above). */
class AtomicCounterStore implements Store {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly budget: Budget,
  ) {}

  async getForIdentity(identity: Identity): Promise<readonly number[]> {
    const decision = await this.limiter.hit(this.budget, identity.contextIdentity, identity.fieldIdentity);
    // The library refuses when (timestamps kept) + 1 > max. The fewest timestamps that reproduce the atomic
    // counter's decision: none while allowed, `limit` (ahead of now, so its window filter keeps them) once
    // refused — not `count - 1`, which would grow with every request of the window.
    if (decision.allowed) return [];
    return new Array<number>(decision.limit).fill(Date.now() + decision.windowMs);
  }

  setForIdentity(): void {
    // never called (readOnly): the increment in getForIdentity is the only write
  }
}

type FieldLimiter = ReturnType<typeof getGraphQLRateLimiter>;
const fieldLimiters = new WeakMap<RateLimiter, Record<'perMinute' | 'callRequestPoll', FieldLimiter>>();

function fieldLimiterOf(limiter: RateLimiter, budget: 'perMinute' | 'callRequestPoll'): FieldLimiter {
  let pair = fieldLimiters.get(limiter);
  if (!pair) {
    const make = (b: Budget) =>
      getGraphQLRateLimiter({ store: new AtomicCounterStore(limiter, b), identifyContext: (c: { orgId: string }) => c.orgId });
    pair = { perMinute: make('perMinute'), callRequestPoll: make('callRequestPoll') };
    fieldLimiters.set(limiter, pair);
  }
  return pair[budget];
}

/** Counts one root field against its REST twin's budget; throws RateLimited past it. */
export async function limitRootField(limiter: RateLimiter, orgId: string, typeName: string, fieldName: string, args: Record<string, unknown>): Promise<void> {
  const { budget, pattern } = budgetOfRootField(typeName, fieldName);
  const { limit, windowMs } = limiter.budget(budget);
  const refused = await fieldLimiterOf(limiter, budget)(
    // the library reads only `fieldName` from info: the pattern is the field identity
    { parent: undefined, args, context: { orgId }, info: { fieldName: pattern } as GraphQLResolveInfo },
    { max: limit, window: `${windowMs}ms`, readOnly: true },
  );
  if (refused !== undefined) {
    const retryAfter = limiter.retryAfter(budget);
    throw new RateLimited(retryAfter, limitMessage({ limit, windowMs, retryAfter }, pattern));
  }
}

/** Wraps the root fields of Query and Mutation once (the schema is shared; the limiter comes from the context). */
export function withRateLimits(schema: GraphQLSchema): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = async (parent, args: Record<string, unknown>, ctx: GraphQLContext, info) => {
        const actor = await ctx.actor(); // after authentication: the owner is known
        await limitRootField(ctx.deps.rateLimit, actor.orgId, type.name, field.name, args);
        return resolve(parent, args, ctx, info);
      };
    }
  }
  // a subscription counts once, when it starts (its events are not requests)
  const subscriptionType = schema.getSubscriptionType();
  for (const field of Object.values(subscriptionType?.getFields() ?? {})) {
    const subscribe = field.subscribe;
    if (!subscribe) continue;
    field.subscribe = async (parent, args: Record<string, unknown>, ctx: GraphQLContext, info) => {
      const actor = await ctx.actor();
      await limitRootField(ctx.deps.rateLimit, actor.orgId, subscriptionType!.name, field.name, args);
      return subscribe(parent, args, ctx, info);
    };
  }
  return schema;
}

function retryAfterOf(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof RateLimited) return current.retryAfter;
    // duck-typed: yoga and our code may hold different copies of graphql's GraphQLError class
    const extensions = (current as GraphQLError).extensions;
    if (extensions?.code === 'RATE_LIMITED') {
      const r = Number(extensions.retryAfter);
      return Number.isFinite(r) ? r : 1;
    }
    current = (current as { originalError?: unknown }).originalError;
  }
  return undefined;
}

/** The response keys (alias or name) of the executed operation's root fields. */
export function rootResponseKeys(document: DocumentNode, operationName?: string | null): Set<string> {
  const keys = new Set<string>();
  const fragments = new Map<string, SelectionSetNode>();
  let operation: SelectionSetNode | undefined;
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def.selectionSet);
    if (def.kind === Kind.OPERATION_DEFINITION && (!operationName || def.name?.value === operationName)) operation ??= def.selectionSet;
  }
  const seen = new Set<string>();
  const collect = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) keys.add(sel.alias?.value ?? sel.name.value);
      else if (sel.kind === Kind.INLINE_FRAGMENT) collect(sel.selectionSet);
      else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const fragment = fragments.get(sel.name.value);
        if (fragment) collect(fragment);
      }
    }
  };
  if (operation) collect(operation);
  return keys;
}

/**
 * An operation whose every root field was refused by a budget answers HTTP 429 with Retry-After (the
 * longest wait among its fields: after it, every field has budget again). Partially limited
 * operations stay 200 with per-field errors, like any partial GraphQL result.
 */
export function withRateLimitStatus<R extends ExecutionResult>(result: R, roots: ReadonlySet<string>): R {
  if (!result.errors?.length || roots.size === 0) return result;
  const limited = new Map<string, number>();
  for (const error of result.errors) {
    const key = error.path?.length === 1 ? error.path[0] : undefined;
    const retryAfter = retryAfterOf(error);
    if (typeof key === 'string' && retryAfter !== undefined) limited.set(key, Math.max(limited.get(key) ?? 0, retryAfter));
  }
  if ([...roots].some((k) => !limited.has(k))) return result;
  const retryAfter = Math.max(1, ...limited.values());
  return { ...result, extensions: { ...result.extensions, http: { status: 429, headers: { 'Retry-After': String(retryAfter) } } } };
}

/** `withRateLimitStatus` for every operation yoga executes (prepared ones run outside yoga call it themselves). */
export function useRateLimitStatus(): Plugin {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          if (!result || Symbol.asyncIterator in result || !result.errors?.length) return;
          const limited = withRateLimitStatus(result, rootResponseKeys(args.document, args.operationName));
          if (limited !== result) setResult(limited);
        },
      };
    },
  };
}
