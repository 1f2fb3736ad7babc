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
import { propagation, ROOT_CONTEXT, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';
import { list } from '../config/setting.js';
import { trustedPeers } from './trusted-peers.js';

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

/**
 * Whose trace context counts (docs/observability.md#whose-trace-context-counts). Only a peer TRUST_PROXY names
 * may continue its trace into Gatehouse: from anyone else an incoming `traceparent` (and every other header the
 * configured propagators read: `tracestate`, `baggage`, b3…) would choose our trace id — which is the request
 * id in X-Request-Id, Problem Details and the audit log — and, flagged sampled, force the trace to be recorded
 * whatever our sampler says. So an untrusted request's context headers are taken off it before the HTTP
 * instrumentation reads them (its `startIncomingSpanHook` runs just before it extracts the context): the
 * request starts a new root trace our sampler decides on, and the caller's span is recorded as a link only
 * (`requestHook`, once the span exists), for whoever wants to follow it.
 */
function untrustedContext(trusted: (address: string | undefined) => boolean) {
  const dropped = new WeakMap<IncomingMessage, Record<string, string>>();
  return {
    /** Before the server span starts: an untrusted peer's context headers are kept aside, off the request. */
    drop(request: IncomingMessage): Attributes {
      if (trusted(request.socket.remoteAddress)) return {};
      const carrier: Record<string, string> = {};
      for (const field of propagation.fields()) {
        const value = request.headers[field];
        if (value === undefined) continue;
        carrier[field] = Array.isArray(value) ? value.join(',') : value;
        delete request.headers[field];
      }
      if (Object.keys(carrier).length === 0) return {};
      dropped.set(request, carrier);
      return { 'gatehouse.trace_context': 'untrusted' };
    },
    /** Once the server span exists: a link to the caller's span, when it named a valid one. */
    link(span: Span, request: object): void {
      const carrier = dropped.get(request as IncomingMessage);
      if (!carrier) return;
      dropped.delete(request as IncomingMessage);
      const remote = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
      if (remote && trace.isSpanContextValid(remote)) span.addLink({ context: remote, attributes: { 'gatehouse.link': 'untrusted incoming trace context' } });
    },
  };
}

// Probes call these every few seconds: a trace each would drown the others.
const PROBES = new Set(['/healthz', '/readyz']);

export function startTracing(env: Env = process.env): Tracing {
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const serviceNamed = (env.OTEL_SERVICE_NAME ?? '').trim() !== '' || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const incoming = untrustedContext(trustedPeers(list(env.TRUST_PROXY ?? '')));
  const sdk = new NodeSDK({
    ...(serviceNamed ? {} : { serviceName: 'gatehouse' }),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => PROBES.has((request.url ?? '').split('?')[0] ?? ''),
        startIncomingSpanHook: (request) => incoming.drop(request),
        requestHook: (span, request) => incoming.link(span, request),
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
