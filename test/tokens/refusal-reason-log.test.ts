// Every refused access token leaves a log line naming the verifier's reason — unknown kid, signature, expiry,
// audience, issuer, typ, revocation, DPoP, scope — at /v1, /admin/v1 and /userinfo, and never the token itself
// (issue 28: a log saying only `invalid_token` could not tell a key-rotation race from an expired token).
// Real app over HTTP, real PostgreSQL; the app's own pino output is captured.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';
import { createUser } from '../helpers/users.js';

let t: TestApp;
let fixture: ClientFixture;
let userId: string;
let log = '';

before(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => (log += chunk.toString()));
  t = await startTestApp({ env: NO_LIMITS, logStream: stream });
  fixture = await createClient(t.core.db, t.core.clock, { type: 'confidential', grantTypes: ['client_credentials'] });
  userId = (await createUser(t.core.db, t.core.clock)).id;
});
after(() => t.close());

const now = () => Math.floor(Date.now() / 1000);
const claims = (extra: JWTPayload = {}): JWTPayload => ({
  iss: t.config.ISSUER,
  aud: t.config.API_AUDIENCE,
  sub: userId,
  client_id: fixture.client.id,
  jti: randomUUID(),
  iat: now(),
  exp: now() + 300,
  scope: 'openid users:read',
  auth_time: now(),
  ...extra,
});
/** Signed with this server's own access-token key: only the named claim is wrong. */
const signed = (extra: JWTPayload = {}, typ = 'at+jwt') => t.core.keys.sign(claims(extra), { alg: 'ES256', typ });

/** The refusal line of the answer; fails when there is none or when it carries any part of the token. */
function refusalOf(response: Response, token: string): Record<string, unknown> {
  const traceId = response.headers.get('x-request-id');
  assert.ok(traceId, 'the answer names its trace id');
  const line = log
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.trace_id === traceId && l.msg === 'request refused');
  assert.ok(line, `no refusal logged under ${traceId}`);
  const text = JSON.stringify(line);
  for (const part of token.split('.').filter((p) => p.length >= 16)) assert.ok(!text.includes(part), 'the refusal line carries the token');
  return line;
}

const at = (path: string, token: string, scheme = 'Bearer') => fetch(`${t.url}${path}`, { headers: { authorization: `${scheme} ${token}` } });

async function refusedWith(path: string, token: string, expected: string, status = 401) {
  const response = await at(path, token);
  assert.equal(response.status, status, `${path}: ${await response.clone().text()}`);
  assert.equal(refusalOf(response, token).token_refusal, expected, `${path} logs ${expected}`);
}

test('a refused access token logs the verifier reason (unknown kid, signature, expiry, audience, issuer, typ) at /v1, /admin/v1 and /userinfo, never the token', async () => {
  const { privateKey } = await generateKeyPair('ES256');
  const invented = await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'invented-kid' }).sign(privateKey);
  const genuine = await signed();
  const [header, payload] = genuine.split('.');
  const badSignature = `${header}.${payload}.${(await signed()).split('.')[2]}`;
  for (const path of ['/v1/users/me', '/userinfo']) {
    await refusedWith(path, invented, 'unknown_kid');
    await refusedWith(path, badSignature, 'signature');
    await refusedWith(path, await signed({ iat: now() - 400, exp: now() - 100 }), 'expired');
    await refusedWith(path, await signed({ iss: 'https://elsewhere.example' }), 'issuer');
    await refusedWith(path, await signed({}, 'JWT'), 'typ');
  }
  await refusedWith('/v1/users/me', await signed({ aud: 'https://elsewhere.example' }), 'audience');
  await refusedWith('/userinfo', await signed({ aud: 'https://elsewhere.example' }), 'unregistered_audience');
  // A token for /v1 taken to the admin API: the admin API's own audience check says so.
  await refusedWith('/admin/v1/clients', genuine, 'audience');
});

test('a refused access token logs revoked, DPoP binding and missing scope as its reason, never the token', async () => {
  const revoked = await signed();
  assert.equal((await postForm(`${t.url}/revoke`, { token: revoked }, { authorization: basicAuth(fixture.client.id, fixture.secret!) })).status, 200);
  await refusedWith('/v1/users/me', revoked, 'revoked');
  await refusedWith('/userinfo', revoked, 'revoked');

  const bound = await signed({ cnf: { jkt: 'A'.repeat(43) } });
  await refusedWith('/v1/users/me', bound, 'dpop_binding');
  await refusedWith('/userinfo', bound, 'dpop_binding');

  const noScope = await signed({ scope: 'openid' });
  await refusedWith('/v1/users/me', noScope, 'scope', 403);
  await refusedWith('/userinfo', await signed({ scope: 'users:read' }), 'scope', 403);
});
