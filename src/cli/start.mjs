// `npm start`: runs the compiled service (dist/server.js), compiling it first when the sources are
// newer than the last build — so a newcomer never has a build step to remember, and a start costs no
// TypeScript compilation. Plain JavaScript: it runs before anything is compiled.
import module from 'node:module';
import { build } from './build.mjs';

// Node 22.1+ keeps V8's compiled code of the bundle on disk between starts (parsing and compiling it is
// about 0.25 s of a start); Node 20 has no compile cache and starts as before.
module.enableCompileCache?.();

// Source maps are not turned on here: Node decodes a bundle's whole map (hundreds of thousands of small
// arrays, about 50 MB measured) the first time a stack trace is formatted, and keeps it. Stack traces name
// the bundle's functions (build.mjs minifies whitespace and syntax, never names); `NODE_OPTIONS=--enable-source-maps npm start`
// maps them to the TypeScript sources when that is worth the memory.
await build();
await import('../../dist/server.js');
