// Several instances (issue 8, README "Running several instances"): two real server processes behind one
// issuer, on one PostgreSQL database and one Redis. Everything correctness-relevant must hold across
// them: codes, refresh families, idempotency keys, brute-force counters, signing keys.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import * as oauth from 'oauth4webapi';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createPostgresDatabaseUrl } from '../helpers/database.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { authorizeQuery, loginAndConsent } from '../interaction/browserless.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { startInstances, type Instances } from './instances.js';
import { Browser } from '../helpers/browser.js';
import { RFC7636 } from '../helpers/pkce.js';

const REDIRECT_URI = 'https://client.example/cb';
const SECRET = 'a-chosen-client-secret-of-forty-characters';
const PASSWORD = 'correct horse battery staple';
const FAILURE_LIMIT = 4;

let database: { url: string; drop(): Promise<void> };
let redis: RedisServer;
let gh: Instances;
let clientId: string;
let username: string;

before(async () => {
  database = await createPostgresDatabaseUrl();
  redis = await startRedisServer();
  gh = await startInstances({
    databaseUrl: database.url,
    redisUrl: redis.url,
    // TRUST_PROXY lets the brute-force test come from its own address, so it cannot lock out the others;
    // A zero JWKS cache time, a 1 s key refresh and a 1 s clock skew make a rotated key sign 2 s after it is published.
    env: {
      RATE_LIMIT_CLIENT_AUTH_FAILURES: String(FAILURE_LIMIT),
      TRUST_PROXY: '127.0.0.1',
      RATE_LIMIT_TOKEN: '100000',
      JWKS_CACHE_TTL: '0',
      KEY_REFRESH_INTERVAL: '1',
      CLOCK_SKEW: '1',
    },
  });
  const client = await gh.cli(
    'clients',
    'create',
    '--name',
    'Two-instance shop',
    '--type',
    'confidential',
    '--redirect-uri',
    REDIRECT_URI,
    '--grant-types',
    'authorization_code,refresh_token,client_credentials',
    '--scope',
    'openid offline_access orders:read orders:write users:read',
    '--skip-consent',
    '--secret',
    SECRET,
  );
  clientId = String(client.client_id);
  username = `ada-${Date.now()}`;
  await gh.cli('users', 'create', '--username', username, '--password', PASSWORD);
});

after(async () => {
  await gh?.stop();
  await redis?.stop();
  await database?.drop();
});

const as = (): oauth.AuthorizationServer => ({ issuer: gh.issuer });
const client = (): oauth.Client => ({ client_id: clientId });
const auth = () => oauth.ClientSecretBasic(SECRET);
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const at = (base: string): oauth.AuthorizationServer => ({ ...as(), token_endpoint: `${base}/token` });

/** Logs in through instance `loginAt` and redeems the code at `redeemAt`; returns the token response. */
async function loginThenRedeem(loginAt: string, redeemAt: string, scope: string): Promise<oauth.TokenEndpointResponse> {
  const location = await loginAndConsent(new Browser(loginAt), authorizeQuery(clientId, REDIRECT_URI, { scope }), { username });
  const params = oauth.validateAuthResponse(as(), client(), location, 'state-123');
  const response = await oauth.authorizationCodeGrantRequest(at(redeemAt), client(), auth(), params, REDIRECT_URI, RFC7636.verifier, insecure);
  return oauth.processAuthorizationCodeResponse(at(redeemAt), client(), response, { expectedNonce: 'nonce-456', requireIdToken: true });
}

const refreshAt = (base: string, refreshToken: string) => oauth.refreshTokenGrantRequest(at(base), client(), auth(), refreshToken, insecure);

test('a user logs in on instance A and the code is redeemed on instance B', async () => {
  const tokens = await loginThenRedeem(gh.a.url, gh.b.url, 'openid');
  assert.equal(tokens.token_type.toLowerCase(), 'bearer');
  assert.ok(tokens.id_token);
});

test('a refresh token rotated on A and replayed on B revokes the whole family', async () => {
  const first = await loginThenRedeem(gh.b.url, gh.a.url, 'openid offline_access');
  const rotated = await oauth.processRefreshTokenResponse(at(gh.a.url), client(), await refreshAt(gh.a.url, first.refresh_token!));
  assert.ok(rotated.refresh_token && rotated.refresh_token !== first.refresh_token);
  const replay = await refreshAt(gh.b.url, first.refresh_token!);
  assert.equal(replay.status, 400);
  assert.equal(((await replay.json()) as { error: string }).error, 'invalid_grant');
  const successor = await refreshAt(gh.a.url, rotated.refresh_token!);
  assert.equal(successor.status, 400, 'the rotated successor died with the family');
  const introspected = await postForm(`${gh.b.url}/introspect`, { token: rotated.access_token }, { authorization: basicAuth(clientId, SECRET) });
  assert.equal(introspected.body.active, false, 'the family access token is revoked too');
});

test('the same Idempotency-Key raced across both instances executes once: one order row', async () => {
  const { access_token: token } = await loginThenRedeem(gh.a.url, gh.b.url, 'openid orders:write orders:read');
  const key = randomUUID();
  const body = JSON.stringify({ currency: 'EUR', items: [{ sku: 'tea', quantity: 2, unit_price: '3.50' }] });
  const post = (base: string) =>
    fetch(`${base}/v1/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
      body,
    });
  const answers = await Promise.all([gh.a.url, gh.b.url, gh.a.url, gh.b.url, gh.a.url, gh.b.url].map(post));
  const statuses = answers.map((r) => r.status);
  assert.ok(
    statuses.every((s) => s === 201 || s === 409),
    `only creations, replays or in-progress conflicts: ${statuses}`,
  );
  const created = new Set(await Promise.all(answers.filter((r) => r.status === 201).map(async (r) => ((await r.json()) as { id: string }).id)));
  assert.ok(created.size <= 1, 'every 201 is the same order');
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from orders where user_id = $1', [decodeJwt(token).sub]);
    assert.equal(rows[0]!.n, 1);
  } finally {
    await db.end();
  }
});

/** A client_credentials access token from `base` and the kid that signed it. */
async function serviceToken(base: string): Promise<{ token: string; kid: string }> {
  const response = await oauth.clientCredentialsGrantRequest(at(base), client(), auth(), { scope: 'orders:read' }, insecure);
  const { access_token: token } = await oauth.processClientCredentialsResponse(at(base), client(), response);
  return { token, kid: String(decodeProtectedHeader(token).kid) };
}

const listOrdersAt = (base: string, token: string) => fetch(`${base}/v1/orders?user_id=nobody`, { headers: { authorization: `Bearer ${token}` } });

/** Real requests until `probe` holds (a rotated key signs once its schedule's margin has passed). */
async function eventually<T>(probe: () => Promise<T | undefined>, what: string, deadlineMs = 45_000): Promise<T> {
  const end = performance.now() + deadlineMs;
  while (performance.now() < end) {
    const value = await probe();
    if (value !== undefined) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('keys rotated with the CLI: tokens issued by A before and after the rotation verify at B', async () => {
  const before = await serviceToken(gh.a.url);
  assert.equal((await listOrdersAt(gh.b.url, before.token)).status, 200);
  const { rotated } = (await gh.cli('keys', 'rotate', '--alg', 'ES256')) as { rotated: { kid: string }[] };
  const newKid = rotated[0]!.kid;
  assert.notEqual(newKid, before.kid);
  const after = await eventually(async () => {
    const issued = await serviceToken(gh.a.url);
    return issued.kid === newKid ? issued : undefined;
  }, 'instance A to sign with the rotated key');
  await eventually(async () => ((await listOrdersAt(gh.b.url, after.token)).status === 200 ? true : undefined), 'instance B to accept the rotated key');
  assert.equal((await listOrdersAt(gh.b.url, before.token)).status, 200, 'a token signed before the rotation still verifies');
  const fromB = await serviceToken(gh.b.url);
  assert.equal((await listOrdersAt(gh.a.url, fromB.token)).status, 200, 'and B-issued tokens verify at A');
});

test('a client brute-forced across both instances stays blocked on both from that address (the failure count lives in Redis)', async () => {
  const from = { 'x-forwarded-for': '198.51.100.66' };
  for (let i = 0; i < FAILURE_LIMIT; i++) {
    const base = i % 2 === 0 ? gh.a.url : gh.b.url;
    const res = await postForm(`${base}/token`, { grant_type: 'client_credentials' }, { ...from, authorization: basicAuth(clientId, `wrong-${i}`) });
    assert.equal(res.status, 401);
  }
  for (const base of [gh.a.url, gh.b.url]) {
    const right = await postForm(`${base}/token`, { grant_type: 'client_credentials' }, { ...from, authorization: basicAuth(clientId, SECRET) });
    assert.equal(right.status, 429, 'refused even with the right secret, from the address that failed, on either instance');
    assert.ok(Number(right.headers.get('retry-after')) >= 1);
  }
  // The budget is the (client_id, address) pair's: the same client from an address that has not failed is
  // never locked out by someone else's guessing.
  const elsewhere = await postForm(
    `${gh.b.url}/token`,
    { grant_type: 'client_credentials' },
    { 'x-forwarded-for': '198.51.100.67', authorization: basicAuth(clientId, SECRET) },
  );
  assert.equal(elsewhere.status, 200, 'the right secret from another address is not refused');
});
