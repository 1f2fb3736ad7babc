// pinnedGet against real local HTTP servers: the size cap and the timeout are real, the connection goes to
// the address that was checked, and the strict policy refuses loopback before any connection is made.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pinnedGet } from '../../../src/http/outbound/pinned-get.js';
import { OutboundRefused, type OutboundPolicy, type ResolvedAddress } from '../../../src/http/outbound/outbound-policy.js';

const MAX = 64 * 1024;
let server: Server;
let base: string;
let requests = 0;
const hanging = new Set<ServerResponse>();

const routes: Record<string, (res: ServerResponse) => void> = {
  '/small': (res) => res.end(JSON.stringify({ keys: [] })),
  '/declared-huge': (res) => {
    res.writeHead(200, { 'content-length': String(MAX + 1) });
    res.write('x'.repeat(1024));
    hanging.add(res);
  },
  '/streamed-huge': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    // Chunked, no length: the cap must hold while the body arrives.
    for (let i = 0; i < 80; i++) res.write('x'.repeat(1024));
    res.end();
  },
  '/just-under': (res) => res.end('y'.repeat(MAX)),
  '/silent': (res) => hanging.add(res),
  '/trickle': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"keys":');
    hanging.add(res);
  },
  '/redirect': (res) => {
    res.writeHead(302, { location: '/small' });
    res.end();
  },
};

before(async () => {
  server = createServer((req, res) => {
    requests += 1;
    (routes[req.url ?? ''] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const noDns = async (): Promise<ResolvedAddress[]> => {
  throw new Error('no DNS in tests');
};
const LOOPBACK_ALLOWED: OutboundPolicy = { allowedClasses: ['loopback'], allowHttp: true, resolve: noDns };
const get = (path: string, options: { policy?: OutboundPolicy; timeoutMs?: number; url?: string } = {}) =>
  pinnedGet(options.url ?? `${base}${path}`, { policy: options.policy ?? LOOPBACK_ALLOWED, timeoutMs: options.timeoutMs ?? 2_000, maxBytes: MAX });

const refusedWith = (code: string) => (error: unknown) => error instanceof OutboundRefused && error.code === code;

test('jwks_uri fetch size cap: a body over 64 KiB is refused, whether declared up front or streamed without a length', async () => {
  assert.equal((await get('/small')).body.toString(), '{"keys":[]}');
  assert.equal((await get('/just-under')).body.length, MAX, 'exactly the cap is accepted');
  await assert.rejects(get('/declared-huge'), refusedWith('too_large'));
  await assert.rejects(get('/streamed-huge'), refusedWith('too_large'));
});

// The test's own timeout turns a fetch that never gives up into a failure rather than a hang.
test('jwks_uri fetch timeout: a server that never answers, or stops halfway through the body, is abandoned at the deadline', { timeout: 10_000 }, async () => {
  for (const path of ['/silent', '/trickle']) {
    const started = performance.now();
    await assert.rejects(get(path, { timeoutMs: 300 }), refusedWith('timeout'), path);
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 290 && elapsed < 2_000, `${path}: gave up after ${elapsed.toFixed(0)} ms`);
  }
});

test('jwks_uri fetch does not follow redirects', async () => {
  await assert.rejects(get('/redirect'), refusedWith('http_status'));
});

test('jwks_uri fetch connects to the address it checked: the host name is resolved once, by the policy, never again by the socket', async () => {
  let resolutions = 0;
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    resolutions += 1;
    assert.equal(hostname, 'keys.gatehouse.test');
    return [{ address: '127.0.0.1', family: 4 }];
  };
  const port = (server.address() as AddressInfo).port;
  const res = await get('', { url: `http://keys.gatehouse.test:${port}/small`, policy: { ...LOOPBACK_ALLOWED, resolve } });
  assert.equal(res.body.toString(), '{"keys":[]}');
  assert.equal(resolutions, 1);
});

test('jwks_uri fetch with the strict policy refuses loopback targets, literal or resolved, before connecting', async () => {
  const before = requests;
  const strictButHttp: OutboundPolicy = { allowedClasses: [], allowHttp: true, resolve: async () => [{ address: '127.0.0.1', family: 4 }] };
  const port = (server.address() as AddressInfo).port;
  for (const url of [
    `${base}/small`,
    `http://keys.gatehouse.test:${port}/small`,
    `http://localhost:${port}/small`,
    `http://[::ffff:127.0.0.1]:${port}/small`,
  ]) {
    await assert.rejects(get('', { url, policy: strictButHttp }), refusedWith('address_refused'), url);
  }
  await assert.rejects(
    get('', { url: `${base}/small`, policy: { ...strictButHttp, allowHttp: false, allowedClasses: ['loopback'] } }),
    refusedWith('url_refused'),
  );
  assert.equal(requests, before, 'no request reached the server');
});
