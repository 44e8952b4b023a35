// GraphQL side of the budgets. How the pieces fit:
//
// 1. `withRateLimits(schema)` wraps, once after the schema is built, every root field of Query and
//    Mutation and every nested field with a REST twin (rateLimitTwins.ts). The wrapper authenticates
//    (the owner must be known), draws one unit from the field's budget, and only then runs the real
//    resolver. Every occurrence resolves on its own: 3 aliases = 3 units, and `officeHours` under 10
//    organizations = 10 units, as REST would need 10 requests.
// 2. The draw (`OperationBudgets.draw`): graphql-rate-limit first, then the shared counter.
//    - graphql-rate-limit decides per OPERATION: OperationBudgets is the library's Store for one
//      operation and keeps exactly what the Store interface says, the timestamps of this operation's calls
//      per (owner, pattern); past the window's whole budget in this one operation (95 aliased timelines
//      on a budget of 60), the library refuses and the shared counter is not even asked.
//    - the atomic counter (ratelimit/limiter.ts, REST's) decides across operations, surfaces and instances:
//      one INCR per occurrence, in memory or in Redis (never the database).
// 3. A refused field throws RateLimited → `extensions.code: RATE_LIMITED` + `retryAfter` (graphql/errors.ts);
//    the other fields still resolve. `withRateLimitOutcome` (applied to every executed operation) adds
//    `extensions.rateLimit` (what the operation cost, what is left of each budget it drew on), and answers
//    HTTP 429 with Retry-After when no root field produced data because of a limit.
import {
  defaultFieldResolver,
  type ExecutionResult,
  Kind,
  GraphQLError,
  type DocumentNode,
  type GraphQLField,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  isObjectType,
  type SelectionSetNode,
} from 'graphql';
import { getGraphQLRateLimiter, type Identity, type Store } from 'graphql-rate-limit';
import type { Plugin } from 'graphql-yoga';
import { RateLimited } from '../domain/shared/errors.js';
import { limitMessage } from '../ratelimit/http.js';
import type { Decision, RateLimiter } from '../ratelimit/limiter.js';
import type { GraphQLContext } from './context.js';
import { domainErrorExtensions } from './errors.js';
import { executionArgs, type OperationStep } from './operationSteps.js';
import { budgetOfNestedField, budgetOfRootField, type FieldBudget } from './rateLimitTwins.js';

/** `extensions.rateLimit` of every executed GraphQL answer (docs/graphql.md "Limits and cost"). */
export interface RateLimitExtension {
  /** Units this operation drew from the budgets (one per counted field occurrence). */
  cost: number;
  /** Each budget the operation drew on, as left after it. */
  budgets: { pattern: string; limit: number; remaining: number; resetAt: string }[];
}

const INTROSPECTION = 'introspection';
const OVER_OPERATION = 'over the budget in this operation';

/** A window's length as graphql-rate-limit reads it (`60000ms`), made once per length. */
const windowTexts = new Map<number, string>();
function windowText(ms: number): string {
  let text = windowTexts.get(ms);
  if (text === undefined) windowTexts.set(ms, (text = `${ms}ms`));
  return text;
}

/** The budgets one operation draws on (see 2. above): graphql-rate-limit's Store for the operation. */
export class OperationBudgets implements Store {
  private readonly calls = new Map<string, readonly number[]>();
  private readonly drawn = new Map<string, Pick<Decision, 'limit' | 'remaining' | 'resetAt'>>();
  private cost = 0;
  private turn: Promise<unknown> = Promise.resolve();
  /** Checks of the library under way (see draw). */
  private checking = 0;
  private readonly perOperation = getGraphQLRateLimiter({ store: this, identifyContext: (orgId: string) => orgId });

  constructor(private readonly limiter: RateLimiter) {}

  getForIdentity(identity: Identity): readonly number[] {
    return this.calls.get(`${identity.contextIdentity} ${identity.fieldIdentity}`) ?? [];
  }

  setForIdentity(identity: Identity, timestamps: readonly number[]): void {
    this.calls.set(`${identity.contextIdentity} ${identity.fieldIdentity}`, timestamps);
  }

  /** Counts one occurrence of a field against its budget; throws RateLimited past it. */
  async draw(orgId: string, { budget, pattern }: FieldBudget, args: Record<string, unknown>): Promise<void> {
    const { limit, windowMs } = this.limiter.budget(budget);
    const check = () =>
      this.perOperation(
        // the field identity is the REST twin's pattern (the library reads only `fieldName` from info)
        { parent: undefined, args, context: orgId, info: { fieldName: pattern } as GraphQLResolveInfo },
        // `message`: what the library answers past the budget (only whether it answers is read here)
        { max: limit, window: windowText(windowMs), uncountRejected: true, message: OVER_OPERATION },
      );
    // the library reads the store, then writes it: sibling fields resolve concurrently, so their checks
    // take turns (one operation runs in one process; a chain is enough to make each see the last's write).
    // The first check of an operation has nobody to wait for.
    const checking = this.checking === 0 ? check() : this.turn.then(check);
    this.checking++;
    this.turn = checking.then(
      () => this.checking--,
      () => this.checking--,
    );
    const overOperation = await checking;
    let retryAfter: number;
    if (overOperation === undefined) {
      // in memory the counter decides at once; in Redis it is a round trip
      const decision = this.limiter.hitNow(budget, orgId, pattern) ?? (await this.limiter.hit(budget, orgId, pattern));
      this.cost++;
      const known = this.drawn.get(pattern);
      // occurrences resolve concurrently: keep the lowest remaining of the latest window
      if (!known || decision.resetAt > known.resetAt || decision.remaining < known.remaining) this.drawn.set(pattern, decision);
      if (decision.allowed) return;
      retryAfter = decision.retryAfter;
    } else {
      retryAfter = this.limiter.retryAfter(budget);
      const known = this.drawn.get(pattern);
      if (known) this.drawn.set(pattern, { ...known, remaining: 0 });
    }
    throw new RateLimited(retryAfter, limitMessage({ limit, windowMs, retryAfter }, pattern));
  }

  /**
   * Counts one introspection operation against the caller's address (pattern "introspection"), on the
   * per-address budget of UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE with a counter of its own: introspection
   * needs no credential, so an address is all there is to budget it by.
   */
  async drawIntrospection(address: string): Promise<void> {
    const decision = await this.limiter.hit('unauthenticated', address, INTROSPECTION);
    this.cost++;
    this.drawn.set(INTROSPECTION, decision);
    if (!decision.allowed) {
      throw new RateLimited(
        decision.retryAfter,
        `Too many introspection queries from this address: ${decision.limit} per minute; retry after ${decision.retryAfter} s`,
      );
    }
  }

  extension(): RateLimitExtension {
    return {
      cost: this.cost,
      budgets: [...this.drawn].map(([pattern, d]) => ({ pattern, limit: d.limit, remaining: d.remaining, resetAt: isoTime(d.resetAt) })),
    };
  }
}

let lastTime = NaN;
let lastIso = '';

/** A window's end as ISO text: the operations of one window (every answer reports it) format it once. */
function isoTime(ms: number): string {
  if (ms !== lastTime) {
    lastIso = new Date(ms).toISOString();
    lastTime = ms;
  }
  return lastIso;
}

/** The budgets of each operation, by its context (the same object in resolvers and in the plugin's hooks). */
const operationBudgets = new WeakMap<object, OperationBudgets>();

export function budgetsOf(ctx: GraphQLContext): OperationBudgets {
  let budgets = operationBudgets.get(ctx);
  if (!budgets) operationBudgets.set(ctx, (budgets = new OperationBudgets(ctx.deps.rateLimit)));
  return budgets;
}

/** Counts one root field against its budget (also the keyed-mutation path, idempotentOperations.ts). */
export async function limitRootField(
  ctx: GraphQLContext,
  orgId: string,
  typeName: string,
  fieldName: string,
  args: Record<string, unknown>,
): Promise<void> {
  await budgetsOf(ctx).draw(orgId, budgetOfRootField(typeName, fieldName), args);
}

function wrap(field: GraphQLField<unknown, GraphQLContext>, budget: FieldBudget): void {
  const resolve = field.resolve ?? defaultFieldResolver;
  field.resolve = async (parent, args: Record<string, unknown>, ctx: GraphQLContext, info) => {
    const actor = await ctx.actor(); // after authentication: the owner is known
    await budgetsOf(ctx).draw(actor.orgId, budget, args);
    return resolve(parent, args, ctx, info);
  };
}

/** Wraps the fields that draw on a budget, once (the schema is shared; the limiter comes from the context). */
export function withRateLimits(schema: GraphQLSchema): GraphQLSchema {
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].map((t) => t?.name));
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields()) as GraphQLField<unknown, GraphQLContext>[])
      wrap(field, budgetOfRootField(type.name, field.name));
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || roots.has(type.name) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields()) as GraphQLField<unknown, GraphQLContext>[]) {
      const budget = budgetOfNestedField(type.name, field.name);
      if (budget) wrap(field, budget);
    }
  }
  // a subscription counts once, when it starts (its events are not requests)
  const subscriptionType = schema.getSubscriptionType();
  for (const field of Object.values(subscriptionType?.getFields() ?? {})) {
    const subscribe = field.subscribe;
    if (!subscribe) continue;
    field.subscribe = async (parent, args: Record<string, unknown>, ctx: GraphQLContext, info) => {
      const actor = await ctx.actor();
      await limitRootField(ctx, actor.orgId, subscriptionType!.name, field.name, args);
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

/** The root fields of the executed operation: their response keys (alias or name), and whether it introspects. */
export function rootSelection(document: DocumentNode, operationName?: string | null): { keys: Set<string>; introspection: boolean } {
  const keys = new Set<string>();
  let introspection = false;
  const fragments = new Map<string, SelectionSetNode>();
  let operation: SelectionSetNode | undefined;
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def.selectionSet);
    if (def.kind === Kind.OPERATION_DEFINITION && (!operationName || def.name?.value === operationName)) operation ??= def.selectionSet;
  }
  const seen = new Set<string>();
  const collect = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        keys.add(sel.alias?.value ?? sel.name.value);
        // `__typename` alone reads nothing of the schema
        if (sel.name.value === '__schema' || sel.name.value === '__type') introspection = true;
      } else if (sel.kind === Kind.INLINE_FRAGMENT) collect(sel.selectionSet);
      else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const fragment = fragments.get(sel.name.value);
        if (fragment) collect(fragment);
      }
    }
  };
  if (operation) collect(operation);
  return { keys, introspection };
}

/** The response keys (alias or name) of the executed operation's root fields. */
export function rootResponseKeys(document: DocumentNode, operationName?: string | null): Set<string> {
  return rootSelection(document, operationName).keys;
}

/**
 * What every executed operation's answer says about its budgets: `extensions.rateLimit`, and HTTP 429
 * with Retry-After (the longest wait among its limits: after it, every field has budget again) when no
 * root field produced data because a field under it (or itself) was refused by a budget. Partially
 * limited operations stay 200 with per-field errors, like any partial GraphQL result.
 */
export function withRateLimitOutcome<R extends ExecutionResult>(
  result: R,
  roots: ReadonlySet<string>,
  budgets: OperationBudgets | undefined,
): R {
  const extensions: Record<string, unknown> = { ...result.extensions, rateLimit: budgets?.extension() ?? { cost: 0, budgets: [] } };
  if (result.errors?.length && roots.size > 0) {
    const limited = new Map<string, number>();
    for (const error of result.errors) {
      const key = error.path?.[0];
      const retryAfter = retryAfterOf(error);
      if (typeof key === 'string' && retryAfter !== undefined) limited.set(key, Math.max(limited.get(key) ?? 0, retryAfter));
    }
    const data = result.data;
    if ([...roots].every((k) => limited.has(k) && data?.[k] == null)) {
      const retryAfter = Math.max(1, ...limited.values());
      extensions.http = { status: 429, headers: { 'Retry-After': String(retryAfter) } };
    }
  }
  return { ...result, extensions };
}

/** The root selection of a document's operation, walked once per (cached) document and operation name. */
const rootSelections = new WeakMap<DocumentNode, Map<string, ReturnType<typeof rootSelection>>>();

function rootsOf(document: DocumentNode, operationName: string | null | undefined): ReturnType<typeof rootSelection> {
  let byName = rootSelections.get(document);
  if (!byName) rootSelections.set(document, (byName = new Map<string, ReturnType<typeof rootSelection>>()));
  let selection = byName.get(operationName ?? '');
  if (!selection) byName.set(operationName ?? '', (selection = rootSelection(document, operationName)));
  return selection;
}

/** What an executed operation's answer says about its budgets (`withRateLimitOutcome`), on both paths. */
function outcomeOf<R extends ExecutionResult>(
  result: R,
  ctx: GraphQLContext,
  document: DocumentNode,
  operationName: string | null | undefined,
): R {
  return withRateLimitOutcome(result, rootsOf(document, operationName).keys, operationBudgets.get(ctx));
}

/**
 * For every operation executed: an introspection operation first draws on the caller's address (no
 * credential needed, but not free either), then `withRateLimitOutcome` on the result.
 */
export function rateLimitStep(): OperationStep {
  const plugin: Plugin = {
    onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as unknown as GraphQLContext;
      const { document, operationName } = executionArgs(args);
      const { introspection } = rootsOf(document, operationName);
      const hooks = {
        onExecuteDone({
          result,
          setResult,
        }: {
          result: ExecutionResult | AsyncIterable<unknown>;
          setResult: (result: ExecutionResult) => void;
        }) {
          if (!result || Symbol.asyncIterator in result) return;
          setResult(outcomeOf(result, ctx, document, operationName));
        },
      };
      if (!introspection) return hooks;
      return budgetsOf(ctx)
        .drawIntrospection(ctx.clientAddress)
        .then(
          () => hooks,
          (error: unknown) => {
            if (!(error instanceof RateLimited)) throw error;
            setResultAndStopExecution({
              data: null,
              errors: [new GraphQLError(error.message, { originalError: error, extensions: domainErrorExtensions(error) })],
              extensions: {
                rateLimit: budgetsOf(ctx).extension(),
                http: { status: 429, headers: { 'Retry-After': String(error.retryAfter) } },
              },
            });
            return undefined;
          },
        );
    },
  };
  return { name: 'budgets: extensions.rateLimit and 429', plugins: [plugin] };
}
