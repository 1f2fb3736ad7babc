// Trace ids on every response, and Prometheus metrics (request count and latency by route and status). The
// metrics are served by their own listener (metrics-listener.ts), never by the app: its /metrics is a 404.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const TRACE_HEADER = 'x-request-id';

export const genReqId = (): string => randomUUID();

/**
 * With tracing on, a request's id (its `trace_id` in Problem Details, audit events and logs, `X-Request-Id`)
 * comes from its own OpenTelemetry span (src/telemetry/trace-context.ts, requestIdOfActiveSpan: the trace id
 * we drew, never one a caller chose), so one id finds the request in the logs and in the tracing backend.
 * Fastify asks for it inside the HTTP server span; a random id when there is none (not sampled out: an
 * unsampled span still has its ids).
 */
export const traceRequestId = (traceId: () => string | undefined) => (): string => traceId() ?? randomUUID();

export function installObservability(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  // Callback-style hooks: they run on every request, and an async hook costs a promise each time.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(TRACE_HEADER, request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL, keeps label cardinality bounded.
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  return registry;
}
