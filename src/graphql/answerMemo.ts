// Answers of prepared queries kept with the read-model records they were made from, as REST keeps its
// answers of office hours with the schedule they come from (rest/router.ts): a dashboard asking the same
// query again gets the same `data` without the query being run, until a record it read is replaced.
//
// What may be kept: a prepared query (overHttp.ts) whose every field reads only read-model records,
// listed here (MEMO_FIELDS: an organization by id and its plain fields, its office hours) — decided once
// per prepared query from its document. Anything else (availability, which moves with the clock; lists
// read from the database; another field added to the schema) makes a query not kept: a field is kept only
// when it is named here, so a new field is never kept by accident.
//
// How it stays right:
// - Keyed by the parameters (the remembered body: query, variables, operation name) and the actor (the
//   same object for as long as its credential's and owner's records are unchanged: auth/authenticate.ts),
//   so scopes and reach are the actor's.
// - Each answer lists the records it read (the organizations and schedules, as their resolvers report
//   them) and is kept in the read model, which gives it out only while it holds those very objects
//   (readmodel/keptAnswers.ts): a change is seen wherever it was made, within the read model's own bound.
// - Only answers without errors are kept; the steps of every operation still run on a kept answer
//   (operationSteps.ts): the operation label, the variable check, the cost and budgets extension.
// - Budgets are drawn as if the query ran: every field occurrence that drew when the answer was made
//   draws again, in the same order (rateLimits.ts). When one is refused the query runs after all, those
//   draws counted once (replayed, not drawn again), and answers what it answers without a kept answer.
//
// Bounded by the read model (at most 256 bodies, 16 actors each); its hits and misses are its part
// `answers` in /metrics (ocs_read_model_hits_total).
import {
  type DocumentNode,
  getNamedType,
  getOperationAST,
  type GraphQLObjectType,
  type GraphQLSchema,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import type { Actor } from '../domain/shared/access.js';
import type { OrganizationRecord } from '../domain/shared/readModel.js';
import type { KeptAnswers, KeptDependency } from '../readmodel/keptAnswers.js';
import type { ReadModel } from '../readmodel/readModel.js';
import type { FieldBudget } from './rateLimitTwins.js';

/** The fields a kept answer may hold: each reads only read-model records (or a property of its parent). */
const MEMO_FIELDS: ReadonlySet<string> = new Set([
  'Query.organization',
  'Organization.id',
  'Organization.name',
  'Organization.timezone',
  'Organization.isAccount',
  'Organization.communicationsEnabled',
  'Organization.officeHours',
  'OfficeHours.dayOfWeek',
  'OfficeHours.isClosed',
  'OfficeHours.open',
  'OfficeHours.close',
  'OfficeHours.breaks',
  'OfficeBreak.start',
  'OfficeBreak.end',
  'OfficeBreak.reason',
  'OfficeBreak.greeting',
]);

/** Whether every field the operation selects is one a kept answer may hold (walked once per prepared query). */
export function memoizable(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): boolean {
  const operation = getOperationAST(document, operationName ?? undefined);
  const query = schema.getQueryType();
  if (!operation || operation.operation !== 'query' || !query) return false;
  const fragments = new Map<string, SelectionSetNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def.selectionSet);
  const walk = (type: GraphQLObjectType, set: SelectionSetNode, depth: number): boolean => {
    if (depth > 20) return false;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || !walk(type, fragment, depth + 1)) return false;
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (selection.typeCondition && selection.typeCondition.name.value !== type.name) return false;
        if (!walk(type, selection.selectionSet, depth + 1)) return false;
        continue;
      }
      const name = selection.name.value;
      if (name === '__typename') continue;
      if (!MEMO_FIELDS.has(`${type.name}.${name}`)) return false;
      const fieldType = getNamedType(type.getFields()[name]!.type);
      if (selection.selectionSet) {
        if (!isObjectType(fieldType) || !walk(fieldType, selection.selectionSet, depth + 1)) return false;
      }
    }
    return true;
  };
  return walk(query, operation.selectionSet, 0);
}

/** A field occurrence that drew on a budget while the answer was made (in order). */
export interface Draw {
  orgId: string;
  budget: FieldBudget;
}

/** What an operation being kept reports as it runs (its resolvers; rateLimits.ts): the records read and the draws made. */
export class MemoRecorder {
  readonly dependencies: KeptDependency[] = [];
  readonly draws: Draw[] = [];

  organization(record: OrganizationRecord): void {
    this.dependencies.push({ part: 'organization', orgId: record.id, value: record });
  }

  /**
   * The schedule the read model holds for the organization now, which its answer was just made from (none
   * held, read for another instant or evicted meanwhile: the answer is not given out again).
   */
  schedule(readModel: ReadModel, orgId: string): void {
    this.dependencies.push({ part: 'schedule', orgId, value: readModel.held('schedule', orgId) });
  }
}

/** A kept answer: its `data` as JSON text, and the draws it made. */
export interface KeptAnswer {
  data: string;
  draws: readonly Draw[];
}

/** The answers of prepared queries, kept in the read model (readmodel/keptAnswers.ts) by parameters and actor. */
export class AnswerMemo {
  private readonly answers: KeptAnswers<KeptAnswer>;

  constructor(readModel: ReadModel) {
    this.answers = readModel.answers as KeptAnswers<KeptAnswer>;
  }

  /** The answer kept for these parameters and actor, while every record it was made from is still held. */
  get(params: object, actor: Actor): KeptAnswer | undefined {
    return this.answers.get(params, actor);
  }

  set(params: object, actor: Actor, answer: KeptAnswer, recorder: MemoRecorder): void {
    this.answers.set(params, actor, answer, recorder.dependencies);
  }
}
