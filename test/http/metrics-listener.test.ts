// The metrics-listener rule (docs/security/tokens-and-operator-views.md): Prometheus metrics are served only on
// their own listener (METRICS_PORT, METRICS_HOST loopback by default); the main listener's /metrics is a 404,
// while /healthz and /readyz stay public there.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config.js';
import { startMetricsListener, type MetricsListener } from '../../src/http/metrics-listener.js';
import { freePort } from '../../scripts/pg-cluster.mjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startServerProcess } from '../helpers/server-process.js';

let t: TestApp;
let listener: MetricsListener;
before(async () => {
  t = await startTestApp();
  listener = await startMetricsListener(t.app.metrics, { host: '127.0.0.1', port: 0 });
});
after(async () => {
  await listener.close();
  await t.close();
});

test('the metrics-listener rule: the main listener answers /metrics with 404 (a problem, no metric text); /healthz and /readyz stay public', async () => {
  await fetch(`${t.url}/healthz`);
  const main = await fetch(`${t.url}/metrics`);
  assert.equal(main.status, 404);
  const text = await main.text();
  assert.doesNotMatch(text, /http_requests_total|process_cpu/);
  assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
  assert.equal((await fetch(`${t.url}/readyz`)).status, 200);
});

test("the metrics listener serves the app's Prometheus text at /metrics (GET), 404 elsewhere, 405 for other methods", async () => {
  await fetch(`${t.url}/healthz`);
  const res = await fetch(`http://127.0.0.1:${listener.port}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  const text = await res.text();
  assert.match(text, /http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
  assert.equal((await fetch(`http://127.0.0.1:${listener.port}/`)).status, 404);
  assert.equal((await fetch(`http://127.0.0.1:${listener.port}/healthz`)).status, 404);
  assert.equal((await fetch(`http://127.0.0.1:${listener.port}/metrics`, { method: 'POST' })).status, 405);
});

test('METRICS_HOST is loopback and METRICS_PORT 9464 by default; METRICS_PORT=off serves no metrics; a bad METRICS_PORT is a configuration error', () => {
  const config = parseConfig({ NODE_ENV: 'test' });
  assert.equal(config.METRICS_HOST, '127.0.0.1');
  assert.equal(config.METRICS_PORT, 9464);
  assert.equal(parseConfig({ NODE_ENV: 'test', METRICS_PORT: 'off' }).METRICS_PORT, null);
  assert.throws(() => parseConfig({ NODE_ENV: 'test', METRICS_PORT: 'ninety' }), /METRICS_PORT must be an integer between 0 and 65535, or off/);
});

test('the server process serves metrics on METRICS_PORT on loopback and not on its main port', async () => {
  const metricsPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-metrics-'));
  const server = await startServerProcess({ METRICS_PORT: String(metricsPort), DATA_DIR: dataDir, KEY_ENCRYPTION_KEY: '' });
  try {
    assert.equal((await fetch(`${server.url}/metrics`)).status, 404);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(scraped.status, 200);
    assert.match(await scraped.text(), /http_requests_total\{method="GET",route="\/healthz",status="200"\}/);
    assert.match(server.output(), new RegExp(`"metrics":"http://127\\.0\\.0\\.1:${metricsPort}/metrics"`));
  } finally {
    assert.equal(await server.stop('SIGTERM'), 0);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
