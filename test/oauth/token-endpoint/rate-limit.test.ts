// Rate limits at /token (docs/rate-limits.md): requests per client, failed client
// authentication per (client_id, address) and per address for unknown client_ids. Small limits via the
// environment; no test waits for a window to end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { basicAuth, postForm, registerClient } from '../fixtures.js';

const cc = { grant_type: 'client_credentials' };

async function withApp(env: Record<string, string>, run: (t: TestApp) => Promise<void>): Promise<void> {
  // Load shedding off: on a busy shared machine it would turn answers into 503s, which these tests are not about.
  const t = await startTestApp({ env: { OVERLOAD_MAX_EVENT_LOOP_DELAY: '0', ...env } });
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

/** The real client library's request, as a well-behaved client with the right secret would send it. */
async function correctSecretRequest(t: TestApp, clientId: string, secret: string, headers: Record<string, string> = {}): Promise<Response> {
  const as = { issuer: t.url, token_endpoint: `${t.url}/token` };
  return oauth.clientCredentialsGrantRequest(
    as,
    { client_id: clientId },
    oauth.ClientSecretBasic(secret),
    {},
    {
      [oauth.allowInsecureRequests]: true,
      headers: new Headers(headers),
    },
  );
}

const assert429 = (status: number, headers: Headers, body: Record<string, unknown>) => {
  assert.equal(status, 429);
  assert.ok(Number(headers.get('retry-after')) >= 1, 'Retry-After in seconds');
  assert.equal(body.error, 'slow_down');
  assert.equal(headers.get('cache-control'), 'no-store');
};

test('20 token requests with a wrong secret lock the client: the next answer is 429 with Retry-After, and the correct secret is refused too', async () => {
  await withApp({ RATE_LIMIT_CLIENT_AUTH_FAILURES: '20' }, async (t) => {
    const client = await registerClient(t.core);
    for (let i = 0; i < 20; i++) {
      const res = await postForm(`${t.url}/token`, cc, { authorization: basicAuth(client.id, `wrong-${i}`) });
      assert.equal(res.status, 401, `attempt ${i + 1} is an ordinary invalid_client`);
    }
    const blocked = await postForm(`${t.url}/token`, cc, { authorization: basicAuth(client.id, 'wrong-21') });
    assert429(blocked.status, blocked.headers, blocked.body);
    const right = await correctSecretRequest(t, client.id, client.secret);
    assert429(right.status, right.headers, (await right.json()) as Record<string, unknown>);
  });
});

test('failures spread over many unknown client_ids use up the address budget for unknown ids, not the right secret of a registered client from that address', async () => {
  await withApp({ RATE_LIMIT_CLIENT_AUTH_FAILURES: '3' }, async (t) => {
    const client = await registerClient(t.core);
    for (let i = 0; i < 3; i++) {
      const res = await postForm(`${t.url}/token`, cc, { authorization: basicAuth(`guessed-client-${i}`, 'guess') });
      assert.equal(res.status, 401);
    }
    assert.equal((await postForm(`${t.url}/token`, cc, { authorization: basicAuth('guessed-client-more', 'guess') })).status, 429);
    assert.equal((await correctSecretRequest(t, client.id, client.secret)).status, 200);
  });
});

test('a client_id under brute force is blocked at the failing address only: its right secret from another address, and an innocent client, are accepted', async () => {
  // TRUST_PROXY makes X-Forwarded-For the client address, so two "IPs" can be simulated from loopback.
  await withApp({ RATE_LIMIT_CLIENT_AUTH_FAILURES: '3', TRUST_PROXY: '127.0.0.1' }, async (t) => {
    const victim = await registerClient(t.core);
    const other = await registerClient(t.core);
    for (let i = 0; i < 3; i++) {
      const res = await postForm(`${t.url}/token`, cc, { authorization: basicAuth(victim.id, `wrong-${i}`), 'x-forwarded-for': '198.51.100.1' });
      assert.equal(res.status, 401);
    }
    assert.equal((await correctSecretRequest(t, victim.id, victim.secret, { 'x-forwarded-for': '198.51.100.1' })).status, 429);
    assert.equal((await correctSecretRequest(t, victim.id, victim.secret, { 'x-forwarded-for': '203.0.113.9' })).status, 200);
    assert.equal((await correctSecretRequest(t, other.id, other.secret, { 'x-forwarded-for': '198.51.100.1' })).status, 200);
  });
});

test('a spoofed X-Forwarded-For never resets the client authentication failure limit at /token', async () => {
  await withApp({ RATE_LIMIT_CLIENT_AUTH_FAILURES: '3' }, async (t) => {
    const client = await registerClient(t.core);
    for (let i = 0; i < 3; i++) {
      await postForm(`${t.url}/token`, cc, { authorization: basicAuth(client.id, `guess-${i}`), 'x-forwarded-for': `203.0.113.${i}` });
    }
    const spoofed = await correctSecretRequest(t, client.id, client.secret, { 'x-forwarded-for': '192.0.2.77' });
    assert.equal(spoofed.status, 429);
  });
});

test('/token is limited per client: RateLimit headers count down, then 429 slow_down with Retry-After; another client keeps its own budget', async () => {
  await withApp({ RATE_LIMIT_TOKEN: '3' }, async (t) => {
    const busy = await registerClient(t.core);
    const quiet = await registerClient(t.core);
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await correctSecretRequest(t, busy.id, busy.secret);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-policy'), '"token";q=3;w=60');
      remaining.push(Number(/r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1]));
    }
    assert.deepEqual(remaining, [2, 1, 0]);
    const limited = await correctSecretRequest(t, busy.id, busy.secret);
    assert429(limited.status, limited.headers, (await limited.json()) as Record<string, unknown>);
    assert.match(limited.headers.get('ratelimit') ?? '', /r=0/);
    assert.equal((await correctSecretRequest(t, quiet.id, quiet.secret)).status, 200);
  });
});
