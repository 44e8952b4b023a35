// Metrics whose values another component keeps (the read model's hits, the gate's totals, the rate
// limiter's refusals) are read when /metrics is scraped rather than pushed on every event: the hot path
// pays nothing for them, and the component needs no knowledge of metrics.
import { Counter, Gauge, type Registry } from 'prom-client';

export interface ScrapedMetric {
  name: string;
  help: string;
}

/** A counter (a total since start) read from its keeper on each scrape. */
export function scrapedCounter(registry: Registry, metric: ScrapedMetric, read: () => number): void {
  new Counter({
    ...metric,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/** Counters by one label whose values form a fixed set (the keys `read` answers). */
export function scrapedCounters<L extends string>(
  registry: Registry,
  metric: ScrapedMetric & { label: L },
  read: () => Record<string, number>,
): void {
  new Counter<L>({
    name: metric.name,
    help: metric.help,
    labelNames: [metric.label],
    registers: [registry],
    collect() {
      this.reset();
      for (const [value, total] of Object.entries(read())) this.inc({ [metric.label]: value } as Partial<Record<L, string>>, total);
    },
  });
}

/** A gauge (a value now) read on each scrape; by one label when `read` answers a record. */
export function scrapedGauge(
  registry: Registry,
  metric: ScrapedMetric & { label?: string },
  read: () => number | Record<string, number>,
): void {
  new Gauge({
    name: metric.name,
    help: metric.help,
    labelNames: metric.label ? [metric.label] : [],
    registers: [registry],
    collect() {
      const value = read();
      if (typeof value === 'number') {
        this.set(value);
        return;
      }
      this.reset();
      for (const [labelValue, v] of Object.entries(value)) this.set({ [metric.label!]: labelValue }, v);
    },
  });
}
