// Versioning (RFC 9745 Deprecation, RFC 8594 Sunset): the same API mounted as a deprecated /v0 (with a
// sunset) and /v2 (deprecated, no sunset) next to the current /v1, with a manual clock across the sunset.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { apiVersion } from '../../src/api/version.js';
import { resourceServerAuth } from '../../src/resource-server/auth/index.js';
import { accessTokenIssuer } from '../../src/oauth/issued-tokens/access-tokens.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const DEPRECATED = Date.parse('2026-01-01T00:00:00Z');
const SUNSET = Date.parse('2027-01-01T00:00:00Z');
const clock = manualClock(Date.parse('2026-06-01T12:00:00Z'));
let t: TestApp;

before(async () => {
  t = await startTestApp({
    clock,
    env: { API_DEPRECATED_VERSIONS: 'v0@2026-01-01T00:00:00Z@2027-01-01T00:00:00Z,v2@2026-01-01T00:00:00Z' },
    async configure(app) {
      const auth = resourceServerAuth(app.core);
      await app.register(apiVersion, { prefix: '/v0', version: 'v0', services: app.core, auth });
      await app.register(apiVersion, { prefix: '/v2', version: 'v2', services: app.core, auth });
    },
  });
});
after(() => t.close());

async function token() {
  const issuer = accessTokenIssuer({ keys: t.core.keys, clock, config: t.core.config });
  return (await issuer.issue({ sub: 'svc', clientId: 'svc', scope: ['users:read'] })).token;
}
const get = async (path: string, auth = true) => fetch(`${t.url}${path}`, { headers: auth ? { authorization: `Bearer ${await token()}` } : {} });

test('a deprecated version announces Deprecation as @<unix seconds>, Sunset as an IMF-fixdate, and a deprecation Link', async () => {
  const res = await get('/v0/users/me');
  assert.equal(res.status, 404, await res.clone().text()); // a service token has no "me": the headers ride on errors too
  assert.equal(res.headers.get('deprecation'), `@${DEPRECATED / 1000}`);
  assert.equal(res.headers.get('sunset'), 'Fri, 01 Jan 2027 00:00:00 GMT');
  assert.match(res.headers.get('link') ?? '', new RegExp(`<${t.url}/docs>; rel="deprecation"`));
  assert.ok(Date.parse(res.headers.get('sunset')!) >= DEPRECATED, 'Sunset not earlier than Deprecation');
});

test('an unauthenticated request to a deprecated version also carries the deprecation headers', async () => {
  const res = await get('/v0/users/me', false);
  assert.equal(res.status, 401);
  assert.ok(res.headers.get('deprecation'));
});

test('a deprecated version without a planned sunset sends Deprecation and Link but no Sunset', async () => {
  const res = await get('/v2/users/me');
  assert.equal(res.headers.get('deprecation'), `@${DEPRECATED / 1000}`);
  assert.equal(res.headers.get('sunset'), null);
  assert.match(res.headers.get('link') ?? '', /rel="deprecation"/);
});

test('the current version sends neither Deprecation nor Sunset', async () => {
  const res = await get('/v1/users/me');
  assert.equal(res.headers.get('deprecation'), null);
  assert.equal(res.headers.get('sunset'), null);
});

test('after its sunset a version answers 410 problem "gone", before authentication', async () => {
  clock.set(SUNSET + 1000);
  try {
    for (const auth of [true, false]) {
      const res = await get('/v0/users/me', auth);
      assert.equal(res.status, 410);
      const body = (await res.json()) as { code: string };
      assert.equal(body.code, 'gone');
      assert.ok(res.headers.get('sunset'));
    }
    assert.notEqual((await get('/v1/users/me')).status, 410);
  } finally {
    clock.set(Date.parse('2026-06-01T12:00:00Z'));
  }
});
