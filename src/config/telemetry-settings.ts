// Tracing (docs/observability.md#traces). The OpenTelemetry SDK reads these and the other standard OTEL_*
// variables itself (main.ts starts it before the configuration is parsed); they are listed and checked here so
// that a mistyped endpoint stops start-up with a clear line instead of losing every span.
import type { Setting } from './setting.js';

const otlpUrl = (raw: string): string | undefined => {
  try {
    const u = new URL(raw.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? raw.trim() : undefined;
  } catch {
    return undefined;
  }
};

export const telemetrySettings = {
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    doc: 'OpenTelemetry collector (OTLP over HTTP, e.g. `http://collector:4318`): set, traces of requests, database queries and outbox deliveries are exported there, and log lines carry `trace_id`/`span_id`. Unset, tracing is off and its SDK is not even loaded. The SDK reads the other standard OTEL_* variables (`OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`, `OTEL_SERVICE_NAME` — `gatehouse` by default —, `OTEL_RESOURCE_ATTRIBUTES`, …); docs/observability.md#traces.',
    expects: 'an http(s) URL',
    parse: otlpUrl,
    fallback: undefined as string | undefined,
    docDefault: '(tracing off)',
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    doc: 'The full URL traces are POSTed to (e.g. `http://collector:4318/v1/traces`), instead of `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`; set alone, it turns tracing on too.',
    expects: 'an http(s) URL',
    parse: otlpUrl,
    fallback: undefined as string | undefined,
    docDefault: '(tracing off)',
  },
} satisfies Record<string, Setting<unknown>>;
