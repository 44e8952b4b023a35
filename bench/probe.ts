// Asks GET <url> one request after another for `seconds` and prints the latencies' p50, p99 and max (ms)
// as JSON: how fast /healthz answers while the service is under load, measured from its own process so
// that the load generator's event loop does not colour it.
const [url, seconds = '10'] = process.argv.slice(2);
const latencies: number[] = [];
let failures = 0;
// ready once the first answer is in (this process is compiled and connected): the caller starts its load then
await fetch(url!).then((res) => res.arrayBuffer()).catch(() => undefined);
process.stdout.write(JSON.stringify({ ready: true }) + '\n');
const until = Date.now() + Number(seconds) * 1000;
while (Date.now() < until) {
  const started = performance.now();
  try {
    const res = await fetch(url!);
    await res.arrayBuffer();
    if (res.status !== 200) failures++;
  } catch {
    failures++;
  }
  latencies.push(performance.now() - started);
  await new Promise((resolve) => setTimeout(resolve, 20));
}
latencies.sort((a, b) => a - b);
const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10;
process.stdout.write(JSON.stringify({ count: latencies.length, failures, p50: at(0.5), p99: at(0.99), max: at(1) }) + '\n');
