// Brute-force budgets of client authentication (RATE_LIMIT_CLIENT_AUTH_FAILURES, docs/rate-limits.md):
// charged before the secret is checked, per (client_id, address), per address for unknown client_ids.
// Addresses are simulated with X-Forwarded-For from a trusted proxy (TRUST_PROXY=127.0.0.1).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { basicAuth, postForm, registerClient, type RegisteredClient } from '../fixtures.js';

const LIMIT = 10;
let t: TestApp;
before(async () => {
  // No client cache: every attempt looks its client up in the database, as after a cache expiry.
  t = await startTestApp({
    env: { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_CLIENT_AUTH_FAILURES: String(LIMIT), CLIENT_CACHE_TTL: '0', OVERLOAD_MAX_EVENT_LOOP_DELAY: '0' },
  });
});
after(() => t.close());

let nextAddress = 0;
const freshAddress = () => `198.51.100.${++nextAddress}`;

const tokenRequest = (
  client: { id: string },
  secret: string,
  from: string,
  params: Record<string, string> = { grant_type: 'client_credentials', scope: 'orders:read' },
) => postForm(`${t.url}/token`, params, { authorization: basicAuth(client.id, secret), 'x-forwarded-for': from });

async function useUpBudget(client: RegisteredClient, from: string): Promise<void> {
  for (let i = 0; i < LIMIT; i++) assert.equal((await tokenRequest(client, `guess-${i}`, from)).status, 401);
  assert.equal((await tokenRequest(client, client.secret, from)).status, 429, 'the failing address is locked, even with the right secret');
}

test('40 parallel wrong secrets for one client at /token: at most the budget is evaluated, the rest are refused with 429', async () => {
  const victim = await registerClient(t.core, { client_name: 'victim' });
  const from = freshAddress();
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => tokenRequest(victim, `guess-${i}`, from)));
  const evaluated = results.filter((r) => r.status === 401).length;
  assert.ok(evaluated <= LIMIT, `${evaluated} wrong secrets were evaluated, the budget is ${LIMIT}`);
  assert.equal(results.filter((r) => r.status === 429).length, 40 - evaluated);
});

test('40 parallel client assertions signed with a wrong key for one client: at most the budget is evaluated, the rest are refused with 429', async () => {
  const registered = await generateKeyPair('ES256', { extractable: true });
  const forger = await generateKeyPair('ES256');
  const client = await registerClient(t.core, {
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [{ ...(await exportJWK(registered.publicKey)), kid: 'k1' }] },
  });
  const now = Math.floor(Date.now() / 1000);
  const forged = await Promise.all(
    Array.from({ length: 40 }, () =>
      new SignJWT({ iss: client.id, sub: client.id, aud: t.url, iat: now, exp: now + 60, jti: randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .sign(forger.privateKey),
    ),
  );
  const from = freshAddress();
  const results = await Promise.all(
    forged.map((assertion) =>
      postForm(
        `${t.url}/token`,
        { grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion },
        { 'x-forwarded-for': from },
      ),
    ),
  );
  const evaluated = results.filter((r) => r.status === 401).length;
  assert.ok(evaluated <= LIMIT, `${evaluated} forged assertions were verified, the budget is ${LIMIT}`);
  assert.equal(results.filter((r) => r.status === 429).length, 40 - evaluated);
});

test('40 parallel unknown client_ids from one address: at most the address budget is evaluated, the rest are refused with 429', async () => {
  const from = freshAddress();
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => tokenRequest({ id: `ghost-${i}` }, 'x'.repeat(43), from)));
  const evaluated = results.filter((r) => r.status === 401).length;
  assert.ok(evaluated <= LIMIT, `${evaluated} unknown clients were evaluated, the budget is ${LIMIT}`);
  assert.equal(results.filter((r) => r.status === 429).length, 40 - evaluated);
});

test("a client's failures from one address never refuse its right secret from another address", async () => {
  const client = await registerClient(t.core, { client_name: 'spread' });
  await useUpBudget(client, freshAddress());
  assert.equal((await tokenRequest(client, client.secret, freshAddress())).status, 200);
});

test("other clients' right secrets from the same address are never refused because of one client's failures (shared NAT)", async () => {
  const misconfigured = await registerClient(t.core, { client_name: 'misconfigured' });
  const neighbours = await Promise.all([1, 2, 3].map((i) => registerClient(t.core, { client_name: `neighbour-${i}` })));
  const nat = freshAddress();
  await useUpBudget(misconfigured, nat);
  for (const neighbour of neighbours) assert.equal((await tokenRequest(neighbour, neighbour.secret, nat)).status, 200);
});

test('anyone who knows a public client_id cannot lock that client out: failures from their address leave it usable from others', async () => {
  const app = await registerClient(t.core, {
    client_name: 'spa',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    redirect_uris: ['https://spa.example/cb'],
  });
  const attacker = freshAddress();
  for (let i = 0; i <= LIMIT; i++) await tokenRequest(app, `guess-${i}`, attacker);
  assert.equal((await tokenRequest(app, 'one-more', attacker)).status, 429);
  // The SPA's own request (client_id only) is authenticated — it gets the grant's answer, not a 401 or 429.
  const own = await postForm(
    `${t.url}/token`,
    { grant_type: 'authorization_code', client_id: app.id, code: 'stale', code_verifier: 'v'.repeat(43), redirect_uri: 'https://spa.example/cb' },
    { 'x-forwarded-for': freshAddress() },
  );
  assert.equal(own.status, 400);
  assert.equal(own.body.error, 'invalid_grant');
});

test('unknown client_ids count against the address: past its budget more unknown ids are refused, while a registered client from that address still authenticates', async () => {
  const client = await registerClient(t.core, { client_name: 'beside-a-typo' });
  const from = freshAddress();
  for (let i = 0; i < LIMIT; i++) assert.equal((await tokenRequest({ id: `typo-${i}` }, 'x'.repeat(43), from)).status, 401);
  assert.equal((await tokenRequest({ id: 'typo-more' }, 'x'.repeat(43), from)).status, 429);
  assert.equal((await tokenRequest(client, client.secret, from)).status, 200);
});

test('successes never use up the failure budget: the right secret is refunded', async () => {
  const client = await registerClient(t.core, { client_name: 'busy-but-right' });
  const from = freshAddress();
  for (let i = 0; i < LIMIT + 5; i++) assert.equal((await tokenRequest(client, client.secret, from)).status, 200);
  for (let i = 0; i < LIMIT; i++) assert.equal((await tokenRequest(client, `guess-${i}`, from)).status, 401);
});
