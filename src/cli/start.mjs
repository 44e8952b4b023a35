// `npm start`: runs the compiled service (dist/server.js), compiling it first when the sources are
// newer than the last build — so a newcomer never has a build step to remember, and a start costs no
// TypeScript compilation. Plain JavaScript: it runs before anything is compiled.
import { build } from './build.mjs';

// source maps, so that a stack trace names the TypeScript line
process.setSourceMapsEnabled(true);
await build();
await import('../../dist/server.js');
