// The memory limits `npm start` runs the service with: configuration with defaults, not fixed in
// package.json. Plain JavaScript: start.mjs reads it before anything is compiled, and the tests and the
// benchmark start the service with the same flags (test/support/processes.ts).
//
// - NODE_MAX_OLD_SPACE_MB (192): V8's old generation. The live heap is far smaller; without a cap V8
//   lets garbage grow towards the machine's memory before collecting it.
// - NODE_MAX_SEMI_SPACE_MB (16): the young generation's semi-spaces. Smaller ones promote the objects of
//   requests in flight under many connections to the old generation, which then collects more often.
// - MALLOC_ARENA_MAX (2): glibc's malloc arenas. Otherwise each thread that allocates (V8's GC helpers,
//   libuv's pool) gets its own arena, memory that is rarely returned.
// Both V8 flags and MALLOC_ARENA_MAX are read when a process starts, so they cannot be applied later.

const DEFAULTS = { NODE_MAX_OLD_SPACE_MB: '192', NODE_MAX_SEMI_SPACE_MB: '16', MALLOC_ARENA_MAX: '2' };

/** Marks a process started with the limits (start.mjs then does not start it again). */
export const LIMITS_APPLIED = 'OCS_START_LIMITS_APPLIED';

function positive(env, name) {
  const value = env[name] ?? DEFAULTS[name];
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`${name} must be a positive integer (is "${value}")`);
  return value;
}

/** The Node.js flags and the environment the service runs with, from `env` (defaults above). */
export function startLimits(env = process.env) {
  return {
    nodeFlags: [
      `--max-semi-space-size=${positive(env, 'NODE_MAX_SEMI_SPACE_MB')}`,
      `--max-old-space-size=${positive(env, 'NODE_MAX_OLD_SPACE_MB')}`,
    ],
    env: { MALLOC_ARENA_MAX: positive(env, 'MALLOC_ARENA_MAX'), [LIMITS_APPLIED]: '1' },
  };
}
