// Whose trace context counts (docs/observability.md#whose-trace-context-counts), end to end with the server as
// a child process exporting to an OTLP receiver the test starts (as tracing.test.ts). TRUST_PROXY names
// 127.0.0.2: the test reaches the server (on 127.0.0.1) from 127.0.0.2 as the trusted proxy and from 127.0.0.1
// as anyone else, so one server sees both. An untrusted caller's `traceparent` neither chooses the request id
// (X-Request-Id, Problem Details, the audit log's trace_id) nor the sampling decision; it is kept as a link.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdminClient } from '../helpers/admin-client.js';
import { createPostgresDatabaseUrl, testDatabaseKind } from '../helpers/database.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { cliWith } from '../multi-instance/instances.js';
import { basicAuth } from '../oauth/fixtures.js';

const pglite = testDatabaseKind() === 'pglite';
const PROXY = '127.0.0.2';
const sharedKey = randomBytes(32).toString('base64url');

let database: { env: Record<string, string>; drop(): Promise<void> };
let otlp: OtlpReceiver;
let traced: ServerProcess;
let admin: { id: string; secret: string };

async function serverDatabase(): Promise<typeof database> {
  if (pglite) {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-trace-context-'));
    return { env: { DATABASE_URL: 'pglite:', DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const { url, drop } = await createPostgresDatabaseUrl();
  return { env: { DATABASE_URL: url }, drop };
}

const tracingEnv = () => ({
  ...database.env,
  KEY_ENCRYPTION_KEY: sharedKey,
  RATE_LIMIT_TOKEN: '100000',
  TRUST_PROXY: PROXY,
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '50',
});

/** A caller's W3C trace context: a trace and span id it chose, flagged sampled. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** One HTTP request from a chosen local address (127.0.0.1: anyone; PROXY: the trusted proxy). */
function send(
  url: string,
  { method = 'GET', headers = {}, body, from }: { method?: string; headers?: Record<string, string>; body?: string; from: string },
): Promise<{ status: number; requestId: string; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, localAddress: from }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, requestId: String(response.headers['x-request-id']), body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    request.on('error', reject);
    request.end(body);
  });
}

async function accessToken(server: ServerProcess): Promise<string> {
  const res = await send(`${server.url}/token`, {
    method: 'POST',
    from: '127.0.0.1',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(admin.id, admin.secret) },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'admin:read admin:write' }).toString(),
  });
  assert.equal(res.status, 200, res.body);
  return String((JSON.parse(res.body) as { access_token: string }).access_token);
}

before(async () => {
  database = await serverDatabase();
  otlp = await startOtlpReceiver();
  traced = await startServerProcess(tracingEnv());
  admin = await createAdminClient(cliWith({ ...database.env, KEY_ENCRYPTION_KEY: sharedKey, ISSUER: traced.url }), 'Ops');
});
after(async () => {
  await traced?.stop();
  await otlp?.close();
  await database?.drop();
});

test("the request id is always ours: an untrusted caller's traceparent chooses neither X-Request-Id, nor Problem Details' trace_id, nor the audit log's; its trace is a link of a new root", async () => {
  const caller = callerContext();
  // Problem Details: an admin request without a token.
  const refused = await send(`${traced.url}/admin/v1/users`, { from: '127.0.0.1', headers: { traceparent: caller.traceparent } });
  assert.equal(refused.status, 401);
  assert.match(refused.requestId, /^[0-9a-f]{32}$/);
  assert.notEqual(refused.requestId, caller.traceId);
  assert.equal((JSON.parse(refused.body) as { trace_id?: string }).trace_id, refused.requestId);
  // The server span starts a trace of ours (the request id) and only links to the caller's span.
  const server = await otlp.waitForSpan((s) => s.traceId === refused.requestId && s.kind === 2);
  assert.equal(server.parentSpanId, undefined, 'a new root');
  assert.deepEqual(
    server.links.map((l) => [l.traceId, l.spanId]),
    [[caller.traceId, caller.spanId]],
  );
  assert.ok(!otlp.spans.some((s) => s.traceId === caller.traceId), 'nothing recorded in the trace the caller named');

  // The audit log: a user created with a forged traceparent is audited under our request id.
  const token = await accessToken(traced);
  const forged = callerContext();
  const created = await send(`${traced.url}/admin/v1/users`, {
    method: 'POST',
    from: '127.0.0.1',
    headers: {
      traceparent: forged.traceparent,
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': crypto.randomUUID(),
    },
    body: JSON.stringify({ username: `forged-${Date.now()}`, password: 'correct horse battery staple' }),
  });
  assert.equal(created.status, 201, created.body);
  const userId = (JSON.parse(created.body) as { id: string }).id;
  const events = await send(`${traced.url}/admin/v1/audit-events?type=admin.user.created&subject=${userId}`, {
    from: '127.0.0.1',
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(events.status, 200, events.body);
  const [event] = (JSON.parse(events.body) as { data: { trace_id?: string }[] }).data;
  assert.equal(event?.trace_id, created.requestId);
  assert.notEqual(event?.trace_id, forged.traceId);
});

test('incoming trace context is honoured from a trusted peer (TRUST_PROXY): its trace continues, and the request id is still derived from our own span', async () => {
  const peer = callerContext();
  const res = await send(`${traced.url}/admin/v1/users`, { from: PROXY, headers: { traceparent: peer.traceparent } });
  assert.equal(res.status, 401);
  const server = await otlp.waitForSpan((s) => s.traceId === peer.traceId && s.kind === 2);
  assert.equal(server.parentSpanId, peer.spanId, 'the peer span is the parent');
  assert.deepEqual(server.links, []);
  // Unique per request although the trace is the peer's: the trace id, then our server span's id.
  assert.equal(res.requestId, `${peer.traceId}-${server.spanId}`);
});

test("our sampler decides, never an untrusted caller's sampled flag: with a sampler that records no new trace, a traceparent ending in -01 from anyone records nothing", async () => {
  // A second server whose sampler keeps no root trace (ratio 0), but follows a trusted parent's decision.
  const own = pglite ? mkdtempSync(join(tmpdir(), 'gatehouse-trace-context-sampled-')) : undefined;
  const sampled = await startServerProcess({
    ...tracingEnv(),
    ...(own ? { DATA_DIR: own } : {}),
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0',
  });
  try {
    const forced = callerContext();
    const untrusted = await send(`${sampled.url}/admin/v1/users`, { from: '127.0.0.1', headers: { traceparent: forced.traceparent } });
    assert.equal(untrusted.status, 401);
    assert.notEqual(untrusted.requestId, forced.traceId);
    // A trusted peer's sampled request afterwards: its spans end later, so once they are exported the
    // untrusted request's would have been too, had it been recorded.
    const peer = callerContext();
    await send(`${sampled.url}/admin/v1/users`, { from: PROXY, headers: { traceparent: peer.traceparent } });
    await otlp.waitForSpan((s) => s.traceId === peer.traceId && s.kind === 2);
    assert.ok(!otlp.spans.some((s) => s.traceId === forced.traceId || s.traceId === untrusted.requestId), 'the forced trace was not recorded');
  } finally {
    await sampled.stop();
    if (own) rmSync(own, { recursive: true, force: true });
  }
});
