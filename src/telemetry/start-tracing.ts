// Starts the OpenTelemetry SDK (docs/observability.md#traces). Loaded only by main.ts, only when tracing was
// asked for (tracing-settings.ts), and before main.ts imports the server: the instrumentations patch `http`
// and `pg` as they are loaded, and @fastify/otel hooks every Fastify instance from its creation on.
//
// Everything else is the SDK's reading of the standard OTEL_* variables (endpoint, protocol, headers, sampler,
// resource attributes, propagators). Gatehouse adds two defaults: the service name `gatehouse`, and no
// metrics or logs exporter unless one is asked for (metrics are Prometheus, logs are pino's lines on stdout).
import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { Span } from '@opentelemetry/api';

type Env = Record<string, string | undefined>;

export interface Tracing {
  /** Sends the spans still buffered and stops the SDK (at shutdown). */
  shutdown(): Promise<void>;
}

// A URL's query can carry a secret (an upstream authorization code on a callback, a self-service link's token,
// a token a receiver put in its webhook URL): spans keep `REDACTED` in its place, as the request log keeps the
// path only (src/logger.ts).
const REDACTED = 'REDACTED';

function redactQuery(span: Span): void {
  const attributes = (span as unknown as { attributes?: Record<string, unknown> }).attributes ?? {};
  if (typeof attributes['url.query'] === 'string') span.setAttribute('url.query', REDACTED);
  const full = attributes['url.full'];
  if (typeof full === 'string' && full.includes('?')) span.setAttribute('url.full', `${full.slice(0, full.indexOf('?'))}?${REDACTED}`);
}

// Probes call these every few seconds: a trace each would drown the others.
const PROBES = new Set(['/healthz', '/readyz']);

export function startTracing(env: Env = process.env): Tracing {
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const serviceNamed = (env.OTEL_SERVICE_NAME ?? '').trim() !== '' || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    ...(serviceNamed ? {} : { serviceName: 'gatehouse' }),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => PROBES.has((request.url ?? '').split('?')[0] ?? ''),
        // Called as the span ends, once every attribute is set.
        applyCustomAttributesOnSpan: (span) => redactQuery(span),
      }),
      // Statement text only (parameters are bound, never inlined); queries outside a traced request or delivery
      // (the queues polling every second, migrations) make no traces of their own.
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true, ignoreConnectSpans: true }),
      // The request span and the route handler's; one span per lifecycle hook would multiply each request's spans.
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        instrumentHooks: false,
        // @fastify/otel records the raw URL as url.path: the path alone, as on the HTTP server span.
        requestHook: (span, request) => span.setAttribute('url.path', request.url.split('?')[0] ?? ''),
      }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
