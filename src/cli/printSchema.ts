// `npm run schema:print`: writes the GraphQL schema, sorted, to schema.graphql at the repository root.
// The file is committed (clients and codegen read it offline); test/unit/schema.test.ts fails when it
// differs from a fresh print.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from '../graphql/schema/index.js';
import { projectRoot } from '../projectRoot.js';

export const SCHEMA_FILE = join(projectRoot(), 'schema.graphql');

export function printedSchema(): string {
  return printSchema(lexicographicSortSchema(schema)) + '\n';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(SCHEMA_FILE, printedSchema());
  process.stderr.write(`Wrote ${SCHEMA_FILE}\n`);
}
