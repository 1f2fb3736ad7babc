// The trace context where Gatehouse carries it itself (docs/observability.md#traces): the ids in log lines,
// the `traceparent` of outgoing POSTs, and a span per outbox delivery attempt continuing the trace of the
// request that enqueued the message. Only the OpenTelemetry API is imported here: with no SDK started
// (tracing off) every call below meets the API's no-op implementations and does nothing.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type SpanContext } from '@opentelemetry/api';

const tracer = () => trace.getTracer('gatehouse');

/** `trace_id` and `span_id` of the active span, for a log line (a pino mixin); none outside a span. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return trace.isSpanContextValid(span.spanContext()) ? { trace_id: traceId, span_id: spanId } : {};
}

/**
 * A request's id with tracing on, taken inside its HTTP server span (docs/observability.md#the-trace-id-in-every-log-line):
 * always ours. When the span starts the trace — every request from a peer TRUST_PROXY does not name, whose
 * context start-tracing.ts drops — it is the trace id, which our SDK drew. When the span continues a trusted
 * peer's trace, the trace id is the peer's (and shared by every request of that trace), so the id is the trace
 * id followed by OUR span's id: unique per request, and its first part still finds the trace. Undefined outside
 * a valid span (the caller draws a random id).
 */
export function requestIdOfActiveSpan(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span || !trace.isSpanContextValid(span.spanContext())) return undefined;
  const { traceId, spanId } = span.spanContext();
  // `parentSpanContext` is the SDK's ReadableSpan field (the API's Span does not expose the parent).
  const parent = (span as unknown as { parentSpanContext?: SpanContext }).parentSpanContext;
  return parent?.isRemote ? `${traceId}-${spanId}` : traceId;
}

/** The W3C `traceparent` naming the active span, to store with work done later; undefined when not tracing. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** Adds `traceparent` (and `tracestate`) naming the active span to outgoing request headers. */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  const carrier = { ...headers };
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Marks the active span failed (an error handled where it happened, e.g. a delivery to be retried). */
export function markActiveSpanFailed(reason: string, attributes: Attributes = {}): void {
  const span = trace.getActiveSpan();
  span?.setAttributes(attributes);
  span?.setStatus({ code: SpanStatusCode.ERROR, message: reason });
}

/**
 * Runs `work` in a span of its own, a child of the span a stored `traceparent` names (the request that
 * enqueued the message), or a new trace when there is none. The span ends with the work, failed if it threw.
 */
export async function inStoredTraceSpan<T>(name: string, traceparent: string | null, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  const parent = traceparent ? propagation.extract(context.active(), { traceparent }) : context.active();
  return tracer().startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
