// Runs a command-line entry point: exit 0 when it resolves, print the error's message and exit
// non-zero when it throws. The explicit exit matters: the WASM schema engine can leave a timer
// behind that would otherwise hold the process for seconds.
export class UsageError extends Error {}

export function runCli(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}
