// Key rotation seen from outside two real server processes on one PostgreSQL: the JWKS both serve and the
// tokens both issue are polled (real requests, against a deadline) while a key is rotated, and a token
// signed with the new key by one instance is taken to the other's verifiers the moment it exists.
// The second instance is started just before the rotation, so its copy of the key rows is as old as
// possible when the rotation lands — the case the schedule's margin exists for.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import * as oauth from 'oauth4webapi';
import { decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { freePort } from '../../scripts/pg-cluster.mjs';
import { systemClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { createCore } from '../../src/core.js';
import { openPostgres, type Database } from '../../src/storage/driver/database.js';
import { createPostgresDatabaseUrl } from '../helpers/database.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { authorizeQuery, loginAndConsent } from '../interaction/browserless.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { cliWith } from './instances.js';
import { Browser } from '../helpers/browser.js';
import { RFC7636 } from '../helpers/pkce.js';

const JWKS_CACHE_TTL = 3;
const REDIRECT_URI = 'https://client.example/cb';
const SECRET = 'a-chosen-client-secret-of-forty-characters';
const DEADLINE_MS = 90_000;

let database: { url: string; drop(): Promise<void> };
let rotatorDb: Database;
let a: ServerProcess;
let b: ServerProcess;
let issuer: string;
let clientId: string;

/** What the polling saw; filled in by the rotation in before(). */
const seen = {
  newKid: '',
  /** performance.now() at the end of the first JWKS response of each instance listing the new kid. */
  firstServed: new Map<string, number>(),
  /** An instance served the new kid and later a JWKS without it. */
  withdrawn: [] as string[],
  /** performance.now() at the start of the first token request of each instance answered with the new kid. */
  firstSigned: new Map<string, number>(),
  /** Each verifier of one instance given a token the other signed with the new key, on its first presentation. */
  verdicts: [] as { verifier: string; accepted: boolean }[],
};

const as = (base: string): oauth.AuthorizationServer => ({ issuer, token_endpoint: `${base}/token` });
const client = (): oauth.Client => ({ client_id: clientId });
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const kidOf = (jwt: string) => String(decodeProtectedHeader(jwt).kid);

async function serviceToken(base: string): Promise<string> {
  const response = await oauth.clientCredentialsGrantRequest(as(base), client(), oauth.ClientSecretBasic(SECRET), { scope: 'orders:read' }, insecure);
  return (await oauth.processClientCredentialsResponse(as(base), client(), response)).access_token;
}

async function userRefreshToken(base: string, username: string): Promise<string> {
  const location = await loginAndConsent(new Browser(base), authorizeQuery(clientId, REDIRECT_URI, { scope: 'openid offline_access users:read' }), {
    username,
  });
  const params = oauth.validateAuthResponse({ issuer }, client(), location, 'state-123');
  const response = await oauth.authorizationCodeGrantRequest(
    as(base),
    client(),
    oauth.ClientSecretBasic(SECRET),
    params,
    REDIRECT_URI,
    RFC7636.verifier,
    insecure,
  );
  return (await oauth.processAuthorizationCodeResponse(as(base), client(), response, { expectedNonce: 'nonce-456', requireIdToken: true })).refresh_token!;
}

async function refreshed(base: string, refreshToken: string): Promise<{ access: string; refresh: string }> {
  const response = await oauth.refreshTokenGrantRequest(as(base), client(), oauth.ClientSecretBasic(SECRET), refreshToken, insecure);
  const tokens = await oauth.processRefreshTokenResponse(as(base), client(), response);
  return { access: tokens.access_token, refresh: tokens.refresh_token! };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const verifiers = (base: string) => ({
  '/v1': async (token: string) => (await fetch(`${base}/v1/users/me`, { headers: bearer(token) })).status === 200,
  '/userinfo': async (token: string) => (await fetch(`${base}/userinfo`, { headers: bearer(token) })).status === 200,
  '/introspect': async (token: string) =>
    (await postForm(`${base}/introspect`, { token }, { authorization: basicAuth(clientId, SECRET) })).body.active === true,
});

const jwksKids = async (base: string) => ((await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

before(async () => {
  database = await createPostgresDatabaseUrl();
  const [portA, portB] = [await freePort(), await freePort()];
  issuer = `http://127.0.0.1:${portA}`;
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    ISSUER: issuer,
    LOG_LEVEL: 'info',
    RATE_LIMIT_TOKEN: '100000',
    // A short schedule: signing starts JWKS_CACHE_TTL + KEY_REFRESH_INTERVAL + CLOCK_SKEW = 5 s after publication.
    JWKS_CACHE_TTL: String(JWKS_CACHE_TTL),
    KEY_REFRESH_INTERVAL: '1',
    CLOCK_SKEW: '1',
  };
  a = await startServerProcess(env, { port: portA });
  const cli = cliWith(env);
  clientId = String(
    (
      await cli(
        'clients',
        'create',
        '--name',
        'Rotation watcher',
        '--type',
        'confidential',
        '--redirect-uri',
        REDIRECT_URI,
        '--grant-types',
        'authorization_code,refresh_token,client_credentials',
        '--scope',
        'openid offline_access orders:read users:read',
        '--skip-consent',
        '--secret',
        SECRET,
      )
    ).client_id,
  );
  const username = `grace-${Date.now()}`;
  await cli('users', 'create', '--username', username, '--password', 'correct horse battery staple');
  let refreshToken = await userRefreshToken(a.url, username);
  // The rotation is made through the same KeyService `keys rotate` runs, from this process's own core.
  rotatorDb = await openPostgres(database.url, 2);
  const rotator = createCore({ config: parseConfig(env), clock: systemClock, database: rotatorDb });

  b = await startServerProcess(env, { port: portB });
  // B's verifiers have just looked at their keys: tokens with invented kids were refused an instant ago.
  const { privateKey } = await generateKeyPair('ES256');
  const forged = await new SignJWT({ sub: 'nobody' }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'invented' }).sign(privateKey);
  for (const [name, verify] of Object.entries(verifiers(b.url))) assert.equal(await verify(forged), false, `${name} refuses a forged kid`);
  seen.newKid = (await rotator.keys.rotate('ES256')).kid;

  const instances = { A: a, B: b };
  const end = performance.now() + DEADLINE_MS;
  const pending = () => seen.firstSigned.size < 2 && performance.now() < end;
  const watchJwks = async () => {
    while (pending()) {
      await Promise.all(
        Object.entries(instances).map(async ([name, instance]) => {
          const listed = (await jwksKids(instance.url)).includes(seen.newKid);
          const at = performance.now();
          if (listed && !seen.firstServed.has(name)) seen.firstServed.set(name, at);
          if (!listed && seen.firstServed.has(name)) seen.withdrawn.push(name);
        }),
      );
    }
  };
  const watchTokens = async () => {
    while (pending()) {
      await Promise.all(
        Object.entries(instances).map(async ([name, instance]) => {
          const start = performance.now();
          const token = await serviceToken(instance.url);
          if (kidOf(token) !== seen.newKid || seen.firstSigned.has(name)) return;
          seen.firstSigned.set(name, start);
          if (name !== 'A') return;
          // The moment A signs with the new key, B's verifiers get A's tokens: no retry, no waiting.
          const user = await refreshed(a.url, refreshToken);
          refreshToken = user.refresh;
          assert.equal(kidOf(user.access), seen.newKid);
          for (const [verifier, verify] of Object.entries(verifiers(b.url))) seen.verdicts.push({ verifier, accepted: await verify(user.access) });
          const orders = await fetch(`${b.url}/v1/orders?user_id=nobody`, { headers: bearer(token) });
          seen.verdicts.push({ verifier: '/v1 (client token)', accepted: orders.status === 200 });
        }),
      );
    }
  };
  await Promise.all([watchJwks(), watchTokens()]);
});

after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await rotatorDb?.close();
  await database?.drop();
});

test('no instance signs with a rotated key before both instances have served it in their JWKS for JWKS_CACHE_TTL', (t) => {
  assert.equal(seen.firstSigned.size, 2, `both instances signed with the new key within ${DEADLINE_MS / 1000} s`);
  assert.equal(seen.firstServed.size, 2, 'both instances served the new key');
  assert.deepEqual(seen.withdrawn, [], 'once served, the key stays in the JWKS');
  const servedByBoth = Math.max(...seen.firstServed.values());
  const firstSigned = Math.min(...seen.firstSigned.values());
  t.diagnostic(`both JWKS listed the new kid ${((firstSigned - servedByBoth) / 1000).toFixed(2)} s before the first token signed with it`);
  assert.ok(
    firstSigned - servedByBoth >= JWKS_CACHE_TTL * 1000,
    `the first token with the new kid came ${((firstSigned - servedByBoth) / 1000).toFixed(2)} s after both JWKS listed it (need ≥ ${JWKS_CACHE_TTL} s)`,
  );
});

test("a token instance A signs with a new key is accepted at once by instance B's /v1, /userinfo and /introspect", () => {
  assert.ok(seen.verdicts.length >= 4, 'A signed with the new key and B was asked');
  assert.deepEqual(
    seen.verdicts.filter((v) => !v.accepted).map((v) => v.verifier),
    [],
    'refused on first presentation',
  );
});
