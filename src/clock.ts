// The service's time: `now()` and `wakeAt()`, both replaceable by a fake clock in tests (the rate-limit
// windows, call-request expiry and live subscriptions all follow it).

/** Node's setTimeout holds at most 2^31 - 1 ms (about 24.8 days); longer waits are re-armed. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** `wakeAt` on the real clock: a timer that does not keep the process alive by itself. */
export function wakeAtRealTime(atMs: number, wake: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const delay = atMs - Date.now();
    if (delay <= 0) {
      wake();
      return;
    }
    timer = setTimeout(arm, Math.min(delay, MAX_TIMEOUT_MS));
    timer.unref();
  };
  timer = setTimeout(arm, 0);
  timer.unref();
  return () => clearTimeout(timer);
}
