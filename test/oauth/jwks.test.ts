// GET /.well-known/jwks.json and key rotation as seen by token consumers (OIDC Core 10.1.1).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { manualClock } from '../../src/clock.js';
import { executeCommand } from '../../src/cli/execute.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { basicAuth, postForm, registerClient, type RegisteredClient } from './fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';

const clock = manualClock(Date.parse('2026-03-01T10:00:00Z'));
let t: TestApp;
let service: RegisteredClient;

before(async () => {
  t = await startTestApp({ clock, env: NO_LIMITS });
  service = await registerClient(t.core);
});
after(() => t.close());

const jwks = async () =>
  (await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet & { keys: { kid: string; alg: string; use: string }[] };
const token = async () =>
  String((await postForm(`${t.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(service.id, service.secret) })).body.access_token);
const verify = async (jwt: string) =>
  jwtVerify(jwt, createLocalJWKSet(await jwks()), { issuer: t.url, algorithms: ['ES256'], typ: 'at+jwt', currentDate: new Date(clock.now()) });

test('the JWKS is public, cacheable for JWKS_CACHE_TTL, and every key has kid, alg and use', async () => {
  const res = await fetch(`${t.url}/.well-known/jwks.json`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.headers.get('cache-control'), `public, max-age=${t.config.JWKS_CACHE_TTL}`);
  const body = (await res.json()) as { keys: Record<string, unknown>[] };
  assert.deepEqual(body.keys.map((k) => k.alg).sort(), ['ES256', 'RS256']);
  for (const key of body.keys) {
    assert.equal(typeof key.kid, 'string');
    assert.equal(key.use, 'sig');
    for (const privatePart of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(key[privatePart], undefined);
  }
});

test('key rotation via the CLI: a token signed before rotation still verifies; the new key signs only after the publish delay', async () => {
  const before = await token();
  const oldKid = decodeProtectedHeader(before).kid;
  const { rotated } = (await executeCommand(['keys', 'rotate', '--alg', 'ES256'], t.core)) as { rotated: { kid: string; activates_at: string }[] };
  const newKid = rotated[0]!.kid;

  const published = (await jwks()).keys.map((k) => k.kid);
  assert.ok(published.includes(newKid), 'the new key is published at once');
  assert.ok(published.includes(oldKid!), 'the old key stays published');
  assert.equal(decodeProtectedHeader(await token()).kid, oldKid, 'the old key keeps signing during the publish delay');
  await verify(before);

  clock.set(Date.parse(rotated[0]!.activates_at));
  const after = await token();
  assert.equal(decodeProtectedHeader(after).kid, newKid, 'the new key signs after the delay');
  await verify(after);
  await verify(before);
  assert.ok(
    (await jwks()).keys.some((k) => k.kid === oldKid),
    'the old key stays published while its tokens may be alive',
  );
});
