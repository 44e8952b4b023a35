// GraphQL Code Generator: typed documents for the operations the tests send. Each test writes its
// operation with `graphql(\`…\`)` from test/generated; `npm run codegen` reads schema.graphql (offline)
// and generates the result and variable types, so a schema change that breaks an operation breaks
// `npm run typecheck`.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['test/**/*.ts', '!test/generated/**'],
  ignoreNoDocuments: true,
  // `.js` extensions on the generated imports, as NodeNext resolution requires
  emitLegacyCommonJSImports: false,
  generates: {
    'test/generated/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        strictScalars: true,
        scalars: { DateTime: 'string', JSON: 'unknown' },
      },
    },
  },
};

export default config;
