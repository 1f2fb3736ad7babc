// Security suite, area 9: discovery and JWKS (OIDC Discovery §3, §4; RFC 8414; RFC 7518 §3; OIDC Core §10.1.1).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRemoteJWKSet, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { manualClock } from '../../src/clock.js';
import { bearer, startWorld, tokensFor, type World } from './helpers/world.js';

const clock = manualClock();
let w: World;
let doc: Record<string, unknown>;
before(async () => {
  w = await startWorld({ clock });
  doc = (await (await fetch(`${w.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
});
after(() => w.close());

const jwks = async () => ((await (await fetch(String(doc.jwks_uri))).json()) as { keys: Array<JWK & { kid: string }> }).keys;

describe('9. discovery and JWKS', () => {
  test('9.103 GET ISS/.well-known/openid-configuration → 200 application/json', async () => {
    const response = await fetch(`${w.url}/.well-known/openid-configuration`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  });

  test('9.104 issuer equals the exact prefix used to fetch the document; no query or fragment', () => {
    assert.equal(doc.issuer, w.url);
    const issuer = new URL(String(doc.issuer));
    assert.equal(issuer.search, '');
    assert.equal(issuer.hash, '');
    // https is required in production; the test server runs on loopback http, which config allows only for loopback.
    assert.ok(issuer.protocol === 'https:' || issuer.hostname === '127.0.0.1');
  });

  test('9.104+ a Host header of the attacker does not change the issuer or any endpoint (no host-header injection)', async () => {
    const response = await fetch(`${w.url}/.well-known/openid-configuration`, {
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    const body = await response.text();
    assert.doesNotMatch(body, /evil\.example/);
  });

  test('9.106 code_challenge_methods_supported is an array with S256 and without plain', () => {
    assert.ok(Array.isArray(doc.code_challenge_methods_supported));
    assert.ok((doc.code_challenge_methods_supported as string[]).includes('S256'));
    assert.ok(!(doc.code_challenge_methods_supported as string[]).includes('plain'));
  });

  test('9.106 authorization_response_iss_parameter_supported is true', () => {
    assert.equal(doc.authorization_response_iss_parameter_supported, true);
  });

  test('9.106 grant_types_supported has no implicit or password; response_types only code', () => {
    const grants = doc.grant_types_supported as string[];
    assert.ok(!grants.includes('implicit') && !grants.includes('password'));
    assert.deepEqual(doc.response_types_supported, ['code']);
  });

  test('9.106 request_uri_parameter_supported is explicitly false, request_parameter_supported false', () => {
    assert.equal(doc.request_uri_parameter_supported, false);
    assert.notEqual(doc.request_parameter_supported, true);
  });

  test('9.106 token_endpoint_auth_methods_supported matches enforcement: an unadvertised method (client_secret_jwt) fails', async () => {
    const methods = doc.token_endpoint_auth_methods_supported as string[];
    assert.ok(!methods.includes('client_secret_jwt'));
    const { registerClient } = await import('../oauth/fixtures.js');
    await assert.rejects(registerClient(w.t.core, { token_endpoint_auth_method: 'client_secret_jwt' as never }));
  });

  test('9.107 revocation_endpoint and introspection_endpoint are advertised with their auth methods', () => {
    assert.equal(doc.revocation_endpoint, `${w.url}/revoke`);
    assert.equal(doc.introspection_endpoint, `${w.url}/introspect`);
    assert.ok(Array.isArray(doc.revocation_endpoint_auth_methods_supported));
    assert.ok(Array.isArray(doc.introspection_endpoint_auth_methods_supported));
  });

  test('9.107 /.well-known/oauth-authorization-server gives the same issuer and endpoints', async () => {
    const other = (await (await fetch(`${w.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    for (const key of ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri', 'revocation_endpoint', 'introspection_endpoint'])
      assert.equal(other[key], doc[key], key);
  });

  test('9.109 RSA keys have a modulus ≥ 2048 bits; EC keys are P-256 or stronger; no private parts published', async () => {
    const keys = await jwks();
    assert.ok(keys.length >= 2);
    for (const key of keys) {
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) assert.equal(secret in key, false, `${key.kid} publishes ${secret}`);
      if (key.kty === 'RSA') assert.ok(Buffer.from(key.n!, 'base64url').length * 8 >= 2048);
      else if (key.kty === 'EC') assert.ok(['P-256', 'P-384', 'P-521'].includes(key.crv!));
      else assert.fail(`unexpected key type ${key.kty}`);
      await importJWK(key, key.alg);
    }
  });

  test('9.110 key rotation → JWKS lists new and old keys; new tokens carry the new kid; old tokens still validate', async () => {
    const before = await tokensFor(w, w.A, { scope: 'openid offline_access users:read' });
    const oldIdKid = decodeProtectedHeader(before.id_token!).kid;
    const oldAtKid = decodeProtectedHeader(before.access_token).kid;
    const rotatedRs = await w.t.core.keys.rotate('RS256');
    const rotatedEs = await w.t.core.keys.rotate('ES256');
    const kids = (await jwks()).map((k) => k.kid);
    for (const kid of [rotatedRs.kid, rotatedEs.kid, oldIdKid, oldAtKid]) assert.ok(kids.includes(kid!), `${kid} published`);
    const rotatedAt = clock.now();
    clock.set(Math.max(Date.parse(rotatedRs.activates_at), Date.parse(rotatedEs.activates_at)));
    const after = await tokensFor(w, w.A, { scope: 'openid offline_access users:read' });
    assert.equal(decodeProtectedHeader(after.id_token!).kid, rotatedRs.kid);
    assert.equal(decodeProtectedHeader(after.access_token).kid, rotatedEs.kid);
    const set = createRemoteJWKSet(new URL(String(doc.jwks_uri)));
    await jwtVerify(after.id_token!, set, { issuer: w.url, audience: w.A.id, currentDate: new Date(clock.now()) });
    await jwtVerify(before.id_token!, set, { issuer: w.url, audience: w.A.id, currentDate: new Date(rotatedAt) });
    assert.equal((await bearer(w, '/v1/users/me', after.access_token)).status, 200);
    assert.equal((await bearer(w, '/v1/users/me', before.access_token)).status, 200, 'a token signed by the old key is still accepted');
    assert.ok(
      (await jwks()).some((k) => k.kid === oldAtKid),
      'old key still published while its tokens may be alive',
    );
  });

  test('9.x the JWKS is served as public JSON with a bounded cache time', async () => {
    const response = await fetch(String(doc.jwks_uri));
    assert.match(response.headers.get('content-type') ?? '', /json/);
    assert.match(response.headers.get('cache-control') ?? '', /max-age=\d+/);
  });
});
