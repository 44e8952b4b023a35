// GraphQL abuse limits (docs/decisions.md §5), from graphql-armor: an operation past any of them is refused while
// it is parsed or validated, before a resolver (and so a database query) runs. The message names the
// limit, e.g. "Query depth limit of 12 exceeded, found 20." (the library's wording).
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { GraphQLError } from 'graphql';

export const GRAPHQL_LIMITS = {
  /** Nesting of selections; the deepest useful path (templates → workflow → steps → childSteps → actionMetadata → field) is 6. */
  maxDepth: 12,
  /** Aliases per operation; ≥ 100 because clients batch one field under many aliases. */
  maxAliases: 100,
  /** Lexical tokens per document (a 1 MB document is far past it). */
  maxTokens: 5000,
  /** Directives per operation. */
  maxDirectives: 50,
  /** graphql-armor's cost: 1 per scalar, 2 per object, each level multiplied by 1.5. */
  maxCost: 5000,
} as const;

// validation rules report their refusal like any validation error instead of throwing, so that every
// limit an operation breaks is named (a deep query is usually too costly as well); without the
// "Syntax Error: " the library puts before each refusal, which a depth or cost refusal is not
type RuleOptions = NonNullable<NonNullable<ConstructorParameters<typeof EnvelopArmor>[0]>['maxDepth']>;
const reportAll: Pick<RuleOptions, 'onReject' | 'propagateOnRejection'> = {
  propagateOnRejection: false,
  onReject: [(context, error) => context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, '')))],
};

export function abuseLimitPlugins(options: { production: boolean }) {
  return new EnvelopArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ...reportAll },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases, ...reportAll },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives, ...reportAll },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost, ...reportAll },
    // counted while parsing: the parse stops at the first token past the limit
    maxTokens: { n: GRAPHQL_LIMITS.maxTokens },
    // "Did you mean …?" helps while developing but lets a stranger enumerate fields: masked in production
    blockFieldSuggestion: { enabled: options.production },
  }).protect().plugins;
}
