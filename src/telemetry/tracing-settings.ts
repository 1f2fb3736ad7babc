// Whether this process exports traces (docs/observability.md#traces): only when an OTLP endpoint is named by
// the standard variables, and not switched off by them. Read by main.ts before anything else is imported, so
// that the OpenTelemetry SDK is never loaded when tracing is off; no dependency here.

type Env = Readonly<Record<string, string | undefined>>;

const named = (value: string | undefined): boolean => value !== undefined && value.trim() !== '';

export function tracingRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return named(env.OTEL_EXPORTER_OTLP_ENDPOINT) || named(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
