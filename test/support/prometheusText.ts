// Reads Prometheus's text exposition format (what GET /metrics answers) into samples, for tests.
export interface Sample {
  /** The sample's name (a histogram's `_bucket`, `_sum` and `_count` are samples of their own). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export class Scrape {
  constructor(
    readonly text: string,
    readonly samples: Sample[],
  ) {}

  /** The samples named `name` whose labels include `labels`. */
  find(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  }

  /** The sum of the matching samples' values (0 when none). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.find(name, labels).reduce((sum, s) => sum + s.value, 0);
  }

  /** The names of the metric families (`# TYPE` lines). */
  families(): Set<string> {
    return new Set([...this.text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  }
}

export function parsePrometheusText(text: string): Scrape {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return new Scrape(text, samples);
}
