// The outbox's Prometheus metrics, registered next to the HTTP ones (src/http/observability.ts):
// deliveries by channel and outcome as this instance saw them, and — read from the database at each scrape,
// so every instance reports the same truth — messages by channel and state (dead letters included) and the
// age of the oldest undelivered message (the lag an alert watches).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { OutboxRepository } from '../storage/repositories/outbox-repository.js';

export type DeliveryOutcome = 'delivered' | 'retry' | 'dead';

export interface OutboxMetrics {
  delivery(channel: string, outcome: DeliveryOutcome): void;
  /** Registers the metrics in the app's registry (once, by the app). */
  register(registry: Registry): void;
}

export function outboxMetrics(repository: Pick<OutboxRepository, 'summary'>, now: () => number): OutboxMetrics {
  // prom-client collects the gauges of one scrape in parallel: both read one summary (two small queries).
  let last: { at: number; summary: ReturnType<OutboxRepository['summary']> } | undefined;
  const summary = () => {
    if (!last || now() - last.at > 1000) last = { at: now(), summary: repository.summary() };
    return last.summary;
  };
  const deliveries = new Counter({
    name: 'outbox_deliveries_total',
    help: 'Outbox delivery attempts by channel and outcome (delivered, retry, dead), as seen by this instance',
    labelNames: ['channel', 'outcome'] as const,
    registers: [],
  });
  const messages = new Gauge({
    name: 'outbox_messages',
    help: 'Outbox messages by channel and state (pending, delivering, delivered, dead), across all instances',
    labelNames: ['channel', 'state'] as const,
    registers: [],
    async collect() {
      const { counts } = await summary();
      this.reset();
      for (const c of counts) this.set({ channel: c.channel, state: c.state }, c.count);
    },
  });
  const oldestAge = new Gauge({
    name: 'outbox_oldest_undelivered_age_seconds',
    help: 'Age of the oldest message not yet delivered, by channel (0 series: nothing waiting)',
    labelNames: ['channel'] as const,
    registers: [],
    async collect() {
      const { oldestUndelivered } = await summary();
      this.reset();
      for (const o of oldestUndelivered) this.set({ channel: o.channel }, Math.max(0, (now() - o.createdAt.getTime()) / 1000));
    },
  });
  return {
    delivery: (channel, outcome) => deliveries.inc({ channel, outcome }),
    register(registry) {
      registry.registerMetric(deliveries);
      registry.registerMetric(messages);
      registry.registerMetric(oldestAge);
    },
  };
}
