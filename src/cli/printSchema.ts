// `npm run schema:print`: writes the GraphQL schema, sorted, to schema.graphql at the repository root.
// The file is committed (clients and codegen read it offline); test/unit/schema.test.ts fails when it
// differs from a fresh print.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from '../graphql/schema/index.js';

export const SCHEMA_FILE = fileURLToPath(new URL('../../schema.graphql', import.meta.url));

export function printedSchema(): string {
  return printSchema(lexicographicSortSchema(schema)) + '\n';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(SCHEMA_FILE, printedSchema());
  process.stderr.write(`Wrote ${SCHEMA_FILE}\n`);
}
