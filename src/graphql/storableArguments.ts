// Text enters GraphQL through arguments: every argument of every field (root fields, nested fields such
// as Organization.availability, the subscription) is checked by the one storable-text rule
// (domain/shared/storableText.ts) before its resolver runs, so a NUL or an unpaired surrogate in any String or
// ID — a variable or a literal, at any depth of an input object — is BAD_USER_INPUT naming it, and a
// field added later is covered without anyone remembering to. The fields of an `input` argument are
// named as the domain names them (`description`, like REST's body fields); any other argument by its
// name and the path inside it (`filter.subjectId`, `scopes.0`).
import { defaultFieldResolver, type GraphQLField, type GraphQLFieldResolver, type GraphQLSchema, isObjectType } from 'graphql';
import { InvalidInput, type Issue } from '../domain/shared/errors.js';
import { unstorableTextIssues } from '../domain/shared/storableText.js';

/** The argument whose fields are named like a REST body's. */
const BODY_ARGUMENT = 'input';

/** The name under which the fields of each argument are reported. */
function argumentPath(name: string): string {
  return name === BODY_ARGUMENT ? '' : name;
}

function issuesOf(args: Record<string, unknown>): Issue[] | undefined {
  let issues: Issue[] | undefined;
  for (const name in args) {
    const found = unstorableTextIssues(args[name], argumentPath(name));
    if (found.length > 0) (issues ??= []).push(...found);
  }
  return issues;
}

/** The fields whose arguments are checked: what the structural test reads (test/unit/storableText.test.ts). */
export const STORABLE_ARGUMENTS_CHECKED = 'storableArgumentsChecked';

function guard<Resolver extends GraphQLFieldResolver<unknown, unknown>>(resolver: Resolver): Resolver {
  // synchronous like the resolver it wraps: a thrown error is the field's error, as any resolver's
  return ((parent, args: Record<string, unknown>, ctx, info) => {
    const issues = issuesOf(args);
    if (issues) throw new InvalidInput(issues);
    return resolver(parent, args, ctx, info);
  }) as Resolver;
}

function mark(field: GraphQLField<unknown, unknown>): void {
  field.extensions = { ...field.extensions, [STORABLE_ARGUMENTS_CHECKED]: true };
}

/**
 * Wraps, in place, the resolver of every field that takes arguments (a subscription's `subscribe`, where
 * its arguments are read once), and marks the field. Applied inside the budgets (rateLimits.ts): the
 * caller is authenticated and the request counted before its input is judged, as on REST.
 */
export function withStorableArguments(schema: GraphQLSchema): GraphQLSchema {
  const subscriptionType = schema.getSubscriptionType();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.args.length === 0) continue;
      if (type === subscriptionType && field.subscribe) field.subscribe = guard(field.subscribe);
      else field.resolve = guard(field.resolve ?? defaultFieldResolver);
      mark(field);
    }
  }
  return schema;
}
