// An operation's variables are checked once, stopping at the first invalid value, before the executor
// (graphql-js or a compiled query) coerces them. Both executors name the offending value in full in every
// error they report — every field of an object, however many (graphql-js's inspect lists them all) — and
// report an error per unknown field of it: a body under the 1 MiB limit of one object of 100,000 fields
// made fifty errors that each printed the whole object, a 47 MB answer after half a minute of work. Here
// the value is printed at most twice (graphql-js stops at the second error), the message is cut to a
// readable length, and an operation with invalid variables never reaches its executor.
import { type DocumentNode, getOperationAST, getVariableValues, GraphQLError, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { executionArgs, type OperationStep } from './operationSteps.js';

/** The longest message of a variable error: its start (the variable, the value's beginning) and its end (the reason). */
const MAX_MESSAGE = 1_000;

function shortened(message: string): string {
  if (message.length <= MAX_MESSAGE) return message;
  const keep = (MAX_MESSAGE - 5) / 2;
  return `${message.slice(0, keep)} … ${message.slice(-keep)}`;
}

/** The first problem of `variables` for the operation, as graphql-js words it (cut short), or undefined. */
export function variableProblem(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: unknown,
): GraphQLError | undefined {
  const operation = getOperationAST(document, operationName);
  const definitions = operation?.variableDefinitions;
  if (!definitions?.length) return undefined; // variables the operation does not declare are ignored, as execute does
  const inputs = variables && typeof variables === 'object' ? (variables as Record<string, unknown>) : {};
  const { errors } = getVariableValues(schema, definitions, inputs, { maxErrors: 1 });
  const first = errors?.[0];
  if (!first) return undefined;
  return new GraphQLError(shortened(first.message), {
    nodes: first.nodes,
    originalError: first.originalError,
    extensions: first.extensions,
  });
}

/** `maskError`: yoga's masking, which a result set here would not otherwise pass (its plugin comes after this one). */
export function variableCheckStep(schema: GraphQLSchema, maskError: (error: unknown, message: string) => Error): OperationStep {
  const plugin: Plugin = {
    onExecute({ args, setResultAndStopExecution }) {
      const { document, operationName, variables } = executionArgs(args);
      const problem = variableProblem(schema, document, operationName, variables);
      if (problem) setResultAndStopExecution({ errors: [maskError(problem, problem.message) as GraphQLError] });
    },
    // a subscription's variables are coerced the same way, by graphql-js's subscribe
    onSubscribe({ args, setResultAndStopExecution }) {
      const { document, operationName, variables } = executionArgs(args);
      const problem = variableProblem(schema, document, operationName, variables);
      if (problem) setResultAndStopExecution({ errors: [maskError(problem, problem.message) as GraphQLError] });
    },
  };
  return { name: 'variables checked', plugins: [plugin] };
}
