// The proxy's Prometheus metrics, on its operations listener (never the proxied one): requests by outcome,
// refusals by reason (the kit's fixed codes), upstream latency to the first byte, and the age of its copy of
// the revocation list.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface ProtectMetrics {
  registry: Registry;
  requests: Counter<'outcome'>;
  refusals: Counter<'reason'>;
  upstreamSeconds: Histogram;
}

export function protectMetrics(revocationAgeSeconds: () => number): ProtectMetrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'gatehouse_protect_requests_total',
    help: 'Requests by outcome: forwarded, refused, upstream_error, too_large, metadata',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const refusals = new Counter({ name: 'gatehouse_protect_refusals_total', help: 'Refused requests by reason', labelNames: ['reason'], registers: [registry] });
  const upstreamSeconds = new Histogram({
    name: 'gatehouse_protect_upstream_seconds',
    help: 'Time from forwarding a request to the upstream response headers',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [registry],
  });
  new Gauge({
    name: 'gatehouse_protect_revocation_list_age_seconds',
    help: 'Seconds since the revocation list was last read from Gatehouse',
    registers: [registry],
    collect() {
      const age = revocationAgeSeconds();
      this.set(Number.isFinite(age) ? age : -1);
    },
  });
  return { registry, requests, refusals, upstreamSeconds };
}
