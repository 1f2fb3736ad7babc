// When tracing is on (docs/observability.md#traces): an OTLP endpoint named by the standard variables turns it
// on; the SDK's own switches turn it off; anything else leaves it off (and the SDK unloaded: main.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig } from '../../src/config.js';
import { tracingRequested } from '../../src/telemetry/tracing-settings.js';

test('an OTLP endpoint (the base or the traces one) turns tracing on; nothing, an empty value or other OTEL_* variables alone do not', () => {
  assert.equal(tracingRequested({}), false);
  assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }), false);
  assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), false);
  assert.equal(tracingRequested({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'always_on' }), false);
  assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
  assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true);
});

test('OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none keep tracing off even with an endpoint', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  assert.equal(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'true' }), false);
  assert.equal(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' }), false);
  assert.equal(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }), false);
  assert.equal(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' }), true);
});

test('a mistyped OTLP endpoint is a configuration error naming the variable', () => {
  assert.throws(() => parseConfig({ NODE_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
  assert.throws(
    () => parseConfig({ NODE_ENV: 'test', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://x' }),
    /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http\(s\) URL/,
  );
  assert.equal(
    parseConfig({ NODE_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318/' }).OTEL_EXPORTER_OTLP_ENDPOINT,
    'https://collector.example:4318/',
  );
});
