// `npm start`: runs the compiled service (dist/server.js), compiling it first when the sources are
// newer than the last build — so a newcomer never has a build step to remember, and a start costs no
// TypeScript compilation. Plain JavaScript: it runs before anything is compiled.
import { spawn } from 'node:child_process';
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from './build.mjs';
import { LIMITS_APPLIED, startLimits } from './startLimits.mjs';

// The memory limits (startLimits.mjs) take effect only when a process starts: without them, this process
// starts again with them — in place where Node can (process.execve, Node 22.15+ and 23.11+: the same
// process id, nothing extra in memory), else as a child this process waits for and hands signals to.
if (process.env[LIMITS_APPLIED] !== '1') {
  const limits = startLimits();
  const args = [...limits.nodeFlags, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  const env = { ...process.env, ...limits.env };
  if (typeof process.execve === 'function') process.execve(process.execPath, [process.execPath, ...args], env);
  const child = spawn(process.execPath, args, { env, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1))));
  process.exit(code);
}

// Node 22.1+ keeps V8's compiled code of the bundle on disk between starts (parsing and compiling it is
// about 0.25 s of a start); Node 20 has no compile cache and starts as before.
module.enableCompileCache?.();

// Source maps are not turned on here: Node decodes a bundle's whole map (hundreds of thousands of small
// arrays, about 50 MB measured) the first time a stack trace is formatted, and keeps it. Stack traces name
// the bundle's functions (build.mjs minifies whitespace and syntax, never names); `NODE_OPTIONS=--enable-source-maps npm start`
// maps them to the TypeScript sources when that is worth the memory.
await build();
await import('../../dist/server.js');
