// OpenTelemetry tracing (docs/observability.md#traces), end to end: the server runs as a child process (the
// instrumentations must be loaded before `pg`, `http` and Fastify, which only the process entry can do) and
// exports over OTLP/HTTP to a receiver started by the test. A token request's database spans sit under its
// request span; its log lines and `X-Request-Id` name its trace; a webhook delivery carries a `traceparent`
// that names an exported span of the trace of the admin request that caused it. Without the OTEL_* variables
// nothing is sent and no SDK module is even loaded. Runs against the pass's database: the embedded PostgreSQL
// server or the PostgreSQL server (both through `pg`); PGlite has no driver instrumentation, so no database spans.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAdminClient } from '../helpers/admin-client.js';
import { createPostgresDatabaseUrl, testDatabaseKind } from '../helpers/database.js';
import { ancestry, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { cliWith } from '../multi-instance/instances.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

const PROBE = fileURLToPath(new URL('../helpers/module-probe.ts', import.meta.url));
const pglite = testDatabaseKind() === 'pglite';

let database: { env: Record<string, string>; drop(): Promise<void> };
let otlp: OtlpReceiver;
let hooks: Receiver;
let traced: ServerProcess;
let admin: { id: string; secret: string };

/** The pass's database for a child process: a fresh one on the run's server, or PGlite in a data directory. */
async function serverDatabase(): Promise<typeof database> {
  if (pglite) {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-tracing-'));
    return { env: { DATABASE_URL: 'pglite:', DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const { url, drop } = await createPostgresDatabaseUrl();
  return { env: { DATABASE_URL: url }, drop };
}

const baseEnv = () => ({
  ...database.env,
  KEY_ENCRYPTION_KEY: sharedKey,
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  RATE_LIMIT_TOKEN: '100000',
});
const sharedKey = randomBytes(32).toString('base64url');

const logLines = (server: ServerProcess): Record<string, unknown>[] =>
  server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

before(async () => {
  database = await serverDatabase();
  otlp = await startOtlpReceiver();
  hooks = await startReceiver();
  traced = await startServerProcess(
    {
      ...baseEnv(),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Export at once instead of every 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '50',
    },
    { preload: [PROBE] },
  );
  // The CLI as an operator runs it (on PGlite it reaches the database through the running server).
  const cli = cliWith({ ...baseEnv(), ISSUER: traced.url });
  await cli('webhooks', 'create', '--name', 'traced', '--url', hooks.url, '--events', 'user.created');
  admin = await createAdminClient(cli, 'Ops');
});
after(async () => {
  await traced?.stop();
  await hooks?.close();
  await otlp?.close();
  await database?.drop();
});

async function token(server: ServerProcess): Promise<{ accessToken: string; requestId: string }> {
  const res = await postForm(
    `${server.url}/token`,
    { grant_type: 'client_credentials', scope: 'admin:read admin:write' },
    { authorization: basicAuth(admin.id, admin.secret) },
  );
  assert.equal(res.status, 200, res.text);
  return { accessToken: String(res.body.access_token), requestId: String(res.headers.get('x-request-id')) };
}

test('a client_credentials token request is one trace: the HTTP server span, the Fastify request span under it, the database spans under that', async () => {
  const { requestId } = await token(traced);
  // The request's id is its trace id (32 hex digits), so the id an operator is given finds the trace.
  assert.match(requestId, /^[0-9a-f]{32}$/);
  const server = await otlp.waitForSpan((s) => s.traceId === requestId && s.kind === 2 && s.attributes['http.request.method'] === 'POST');
  assert.equal(server.resource['service.name'], 'gatehouse');
  assert.equal(server.parentSpanId, undefined, 'the server span is the root of the trace');
  const request = await otlp.waitForSpan((s) => s.traceId === requestId && s.scope === '@fastify/otel' && s.name === 'request');
  assert.equal(request.attributes['http.route'], '/token');
  assert.equal(request.attributes['http.response.status_code'], 200);
  assert.equal(request.parentSpanId, server.spanId);
  if (pglite) {
    // PGlite runs in the process, without a driver the pg instrumentation knows: no database spans.
    assert.ok(!otlp.spans.some((s) => s.traceId === requestId && s.attributes['db.system.name'] !== undefined));
    return;
  }
  // The client lookup at least, under the request span (a client_credentials token is a JWT, stored nowhere).
  await otlp.waitForSpan((s) => s.traceId === requestId && /from "clients"/.test(String(s.attributes['db.query.text'])));
  const queries = otlp.spans.filter((s) => s.traceId === requestId && s.attributes['db.system.name'] === 'postgresql');
  assert.ok(
    queries.some((s) => /from "clients"/.test(String(s.attributes['db.query.text']))),
    'the client lookup',
  );
  for (const query of queries) {
    assert.ok(
      ancestry(otlp.spans, query).some((s) => s.spanId === request.spanId),
      `${query.name} is under the request span`,
    );
    // Statements only: parameters are never recorded (enhancedDatabaseReporting off).
    assert.equal(query.attributes['db.query.parameter.0'], undefined);
  }
});

test("every log line of a traced request names the request's trace and span", async () => {
  const { requestId } = await token(traced);
  const request = await otlp.waitForSpan((s) => s.traceId === requestId && s.scope === '@fastify/otel' && s.name === 'request');
  const lines = logLines(traced).filter((l) => l.reqId === requestId);
  assert.ok(lines.length >= 2, 'incoming request and request completed');
  for (const line of lines) {
    assert.equal(line.trace_id, requestId);
    assert.match(String(line.span_id), /^[0-9a-f]{16}$/);
  }
  assert.ok(
    lines.some((l) => l.span_id === request.spanId || otlp.spans.some((s) => s.spanId === l.span_id && s.traceId === requestId)),
    'a line names a span the receiver got',
  );
});

test('a webhook delivery carries a traceparent naming an exported span of the trace of the admin request that caused it', async () => {
  const { accessToken } = await token(traced);
  const created = await fetch(`${traced.url}/admin/v1/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ username: `traced-${Date.now()}`, password: 'correct horse battery staple' }),
  });
  assert.equal(created.status, 201, await created.text());
  const requestTrace = created.headers.get('x-request-id')!;
  const [delivery] = await hooks.waitFor(1);
  const traceparent = String(delivery!.headers.traceparent);
  const parsed = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(traceparent);
  assert.ok(parsed, `a W3C traceparent: ${traceparent}`);
  const [, traceId, spanId] = parsed;
  // The delivery ran later, in the outbox worker, yet continues the trace of the request that enqueued it.
  assert.equal(traceId, requestTrace);
  const named = await otlp.waitForSpan((s) => s.spanId === spanId);
  assert.equal(named.traceId, traceId);
  // The attempt's span ends after the POST's (once the delivery is recorded): it may come in a later export.
  await otlp.waitForSpan((s) => s.traceId === traceId && s.name === 'outbox deliver webhook');
  await otlp.waitForSpan((s) => s.traceId === traceId && s.scope === '@fastify/otel' && s.name === 'request');
  const attempt = ancestry(otlp.spans, named).find((s) => s.name === 'outbox deliver webhook');
  assert.ok(attempt, 'the POST is made inside the delivery attempt span');
  assert.equal(attempt.attributes['gatehouse.outbox.channel'], 'webhook');
  assert.equal(attempt.attributes['gatehouse.outbox.attempt'], 1);
  assert.equal(attempt.attributes['gatehouse.outbox.message_id'], String(delivery!.headers['webhook-id']));
  const adminRequest = otlp.spans.find((s) => s.traceId === traceId && s.scope === '@fastify/otel' && s.name === 'request');
  assert.equal(adminRequest?.attributes['http.route'], '/admin/v1/users');
  assert.ok(
    ancestry(otlp.spans, attempt).some((s: ReceivedSpan) => s.spanId === adminRequest?.spanId),
    'the attempt is under the admin request',
  );
});

test("a job enqueued by a request runs in a `job run <kind>` span of that request's trace, its queries under it", async () => {
  // "Forgot your password?" enqueues its mail job for any address (the page answers alike).
  const res = await fetch(`${traced.url}/password/forgot`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: traced.url },
    body: new URLSearchParams({ email: `nobody-${Date.now()}@example.org` }).toString(),
    redirect: 'manual',
  });
  assert.ok(res.status < 400, `status ${res.status}`);
  const requestTrace = res.headers.get('x-request-id')!;
  const run = await otlp.waitForSpan((s) => s.traceId === requestTrace && s.name === 'job run password-reset-mail');
  assert.equal(run.attributes['gatehouse.job.kind'], 'password-reset-mail');
  assert.equal(run.attributes['gatehouse.job.attempt'], 1);
  const request = await otlp.waitForSpan((s) => s.traceId === requestTrace && s.scope === '@fastify/otel' && s.name === 'request');
  assert.equal(request.attributes['http.route'], '/password/forgot');
  assert.ok(
    ancestry(otlp.spans, run).some((s) => s.spanId === request.spanId),
    'the run is under the request that enqueued it',
  );
  if (pglite) return;
  // The job's own queries (marking it done at least) are spans under the run.
  const query = await otlp.waitForSpan(
    (s) =>
      s.traceId === requestTrace && /update "jobs"/.test(String(s.attributes['db.query.text'])) && ancestry(otlp.spans, s).some((a) => a.spanId === run.spanId),
  );
  assert.equal(query.attributes['db.system.name'], 'postgresql');
});

test('a URL query never reaches a span: the server span of a request with one records REDACTED in its place', async () => {
  const res = await fetch(`${traced.url}/authorize?client_id=nobody&state=secret-value`);
  const id = res.headers.get('x-request-id')!;
  const server = await otlp.waitForSpan((s) => s.traceId === id && s.kind === 2);
  assert.equal(server.attributes['url.query'], 'REDACTED');
  const request = await otlp.waitForSpan((s) => s.traceId === id && s.scope === '@fastify/otel' && s.name === 'request');
  assert.equal(request.attributes['url.path'], '/authorize');
  // Span names are bounded: no plugin's source text.
  assert.ok(
    otlp.spans.every((s) => s.name.length < 200),
    'short span names',
  );
  assert.ok(!JSON.stringify(otlp.spans.filter((s) => s.traceId === id)).includes('secret-value'));
});

test('the tracing process loads the SDK; with no OTEL_* endpoint no SDK module is loaded (so nothing can be sent) and nothing changes', async () => {
  // The probe works: the traced process did load the SDK and the instrumentations.
  assert.match(traced.output(), /module-probe: .*@opentelemetry\/sdk-node/);
  assert.match(traced.output(), /module-probe: .*@fastify\/otel/);
  assert.equal(logLines(traced).find((l) => l.msg === 'gatehouse ready')?.tracing, 'otlp');

  // An empty value is unset (the inherited environment might name an endpoint); the other OTEL_* variables
  // alone turn nothing on.
  // PGlite serves one process: the second server has a data directory of its own there.
  const own = pglite ? mkdtempSync(join(tmpdir(), 'gatehouse-tracing-quiet-')) : undefined;
  const quiet = await startServerProcess(
    {
      ...baseEnv(),
      ...(own ? { DATA_DIR: own } : {}),
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'quiet',
    },
    { preload: [PROBE] },
  );
  try {
    const res = await postForm(`${quiet.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth('nobody', 'wrong') });
    // The client lookup ran (a database query, as in the traced test) and was refused.
    assert.equal(res.status, 401);
    // A random request id, as without tracing.
    assert.match(String(res.headers.get('x-request-id')), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(logLines(quiet).find((l) => l.msg === 'gatehouse ready')?.tracing, 'off');
    assert.ok(
      logLines(quiet).every((l) => l.span_id === undefined),
      'no span ids in log lines',
    );
    assert.doesNotMatch(quiet.output(), /module-probe:/);
    assert.equal(await quiet.stop(), 0);
  } finally {
    await quiet.stop();
    if (own) rmSync(own, { recursive: true, force: true });
  }
});
