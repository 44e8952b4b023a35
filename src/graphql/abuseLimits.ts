// GraphQL abuse limits (CONTRACT §5), from graphql-armor: an operation past any of them is refused while
// it is parsed or validated, before a resolver (and so a database query) runs. The message names the
// limit, e.g. "Syntax Error: Query depth limit of 12 exceeded, found 20." (the library's wording).
import { EnvelopArmor } from '@escape.tech/graphql-armor';

export const GRAPHQL_LIMITS = {
  /** Nesting of selections; the deepest dashboard query is 6. */
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

export function abuseLimitPlugins(options: { production: boolean }) {
  return new EnvelopArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    maxTokens: { n: GRAPHQL_LIMITS.maxTokens },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost },
    // "Did you mean …?" helps while developing but lets a stranger enumerate fields: masked in production
    blockFieldSuggestion: { enabled: options.production },
  }).protect().plugins;
}
