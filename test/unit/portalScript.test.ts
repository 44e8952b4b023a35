// The portal's script (src/portal/assets/portal.js) is plain JavaScript served as written, with JSDoc
// types: the project's `tsc` does not read .js files, so this checks it as strictly as the TypeScript
// sources, against the browser's DOM types (not Node's).
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '../../src/portal/assets/portal.js');

describe('the portal script', () => {
  it('type-checks strictly against the DOM', () => {
    const program = ts.createProgram([SCRIPT], {
      allowJs: true,
      checkJs: true,
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2023,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
    expect(problems).toEqual([]);
  });
});
