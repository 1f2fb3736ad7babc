// The resource-server kit on its own (no Gatehouse app): tokens signed by a test issuer whose JWKS a real HTTP
// server publishes, requests checked with verifyRequest and through the Fastify plugin. One test per rule,
// named after it; each fails with the rule removed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { request as rawRequest } from 'node:http';
import {
  resourceServer,
  parseRoute,
  normalisedPath,
  requestTarget,
  RouteSyntaxError,
  type RequestTarget,
  type ResourceServer,
} from '@gatehouse/resource-server';
import { gatehouseResourceServer } from '@gatehouse/resource-server/fastify';
import { calculateJwkThumbprint } from 'jose';
import { claims, sign, startJwksServer, testIssuerKeys, type JwksServer, type TestIssuerKeys } from '../../resource-server/auth/forge.js';
import { dpopKey, dpopProof } from '../../helpers/dpop.js';
import { sha256 } from '../../../src/crypto/random.js';

const ISSUER = 'https://issuer.test';
const RESOURCE = 'https://notes.test/mcp';
let keys: TestIssuerKeys;
let jwks: JwksServer;
let server: ResourceServer;
const revoked = new Set<string>();

before(async () => {
  keys = await testIssuerKeys();
  jwks = await startJwksServer(() => [keys.publicJwk, keys.rsa.publicJwk]);
  server = resourceServer({
    issuer: ISSUER,
    resource: RESOURCE,
    jwksUrl: jwks.url,
    routes: ['GET /mcp/notes*=notes:read', 'POST /mcp/notes*=notes:write', '* /mcp/admin*=notes:admin;acr=urn:gatehouse:acr:mfa'],
    revocations: { isRevoked: async ({ jti }) => revoked.has(jti) },
    revocationRecheckMs: 0,
  });
});
after(() => jwks.close());

const token = (overrides: Record<string, unknown> = {}, header: Record<string, unknown> = {}) =>
  sign(claims(ISSUER, RESOURCE, { scope: 'notes:read', ...overrides }), keys.privateKey, { alg: 'ES256', typ: 'at+jwt', kid: keys.kid, ...header });
const get = (path: string, headers: Record<string, string>) => server.verifyRequest({ method: 'GET', url: path, headers });
const challengeOf = (result: Awaited<ReturnType<ResourceServer['verifyRequest']>>) => (result.ok ? '' : (result.challenge ?? ''));

test('a token of this resource with the route scope passes, and the identity says who', async () => {
  const result = await get('/mcp/notes/1', { authorization: `Bearer ${await token({ sub: 'alice', client_id: 'app' })}` });
  assert.equal(result.ok, true);
  if (!result.ok) return;
  assert.equal(result.identity.sub, 'alice');
  assert.equal(result.identity.clientId, 'app');
  assert.deepEqual([...result.identity.scopes], ['notes:read']);
});

test('no token: 401 with a bare Bearer challenge naming resource_metadata (RFC 6750 3.1, RFC 9728 5.1)', async () => {
  const result = await get('/mcp/notes', {});
  assert.equal(result.ok, false);
  assert.equal(result.ok === false && result.status, 401);
  assert.equal(challengeOf(result), 'Bearer resource_metadata="https://notes.test/.well-known/oauth-protected-resource/mcp"');
});

test('audience: a token for another resource is refused (aud must contain this resource)', async () => {
  const result = await get('/mcp/notes', { authorization: `Bearer ${await token({ aud: 'https://other.test/api' })}` });
  assert.equal(result.ok === false && result.reason, 'audience');
  assert.match(challengeOf(result), /^Bearer error="invalid_token"/);
  const array = await get('/mcp/notes', { authorization: `Bearer ${await token({ aud: [RESOURCE, `${ISSUER}/userinfo`] })}` });
  assert.equal(array.ok, true, 'an array aud containing the resource is accepted (RFC 9068 2.2)');
});

test('typ: a JWT without typ at+jwt (an id_token, say) is refused', async () => {
  const result = await get('/mcp/notes', { authorization: `Bearer ${await token({}, { typ: 'JWT' })}` });
  assert.equal(result.ok === false && result.reason, 'typ');
});

test('pinned algorithm: a token signed with RS256 by a published key is refused (ES256 only)', async () => {
  const rs = await sign(claims(ISSUER, RESOURCE, { scope: 'notes:read' }), keys.rsa.privateKey, { alg: 'RS256', typ: 'at+jwt', kid: keys.rsa.kid });
  const result = await get('/mcp/notes', { authorization: `Bearer ${rs}` });
  assert.equal(result.ok === false && result.reason, 'algorithm');
});

test('issuer: a token from another issuer is refused', async () => {
  const result = await get('/mcp/notes', { authorization: `Bearer ${await token({ iss: 'https://evil.test' })}` });
  assert.equal(result.ok === false && result.reason, 'issuer');
});

test('expiry: an expired token is refused', async () => {
  const now = Math.floor(Date.now() / 1000);
  const result = await get('/mcp/notes', { authorization: `Bearer ${await token({ iat: now - 600, exp: now - 300 })}` });
  assert.equal(result.ok === false && result.reason, 'expired');
});

test('unknown kid: a token naming no published key is refused', async () => {
  const result = await get('/mcp/notes', { authorization: `Bearer ${await token({}, { kid: 'nobody' })}` });
  assert.equal(result.ok === false && result.reason, 'unknown_kid');
});

test('scope per route: a token without the route scope gets 403 insufficient_scope naming it', async () => {
  const result = await server.verifyRequest({ method: 'POST', url: '/mcp/notes', headers: { authorization: `Bearer ${await token()}` } });
  assert.equal(result.ok === false && result.status, 403);
  assert.equal(
    challengeOf(result),
    'Bearer error="insufficient_scope", error_description="This operation requires the scope: notes:write.", scope="notes:write"',
  );
});

test('route matching: dot segments and encoded dots cannot step past a rule (normalised path)', async () => {
  assert.equal(normalisedPath('/mcp/notes/%2E%2E/admin/x?y=1'), '/mcp/admin/x');
  // A caller that serves the normalised path (protect forwards it) passes the target it parsed.
  const url = '/mcp/notes/%2e%2e/admin/keys';
  const target = requestTarget(url) as RequestTarget;
  const result = await server.verifyRequest({ method: 'GET', url, target, headers: { authorization: `Bearer ${await token({ scope: 'notes:read' })}` } });
  assert.equal(result.ok === false && result.reason, 'scope');
});

test('step-up: a route demanding an acr refuses a token without it, 401 insufficient_user_authentication with acr_values (RFC 9470)', async () => {
  const weak = await get('/mcp/admin', { authorization: `Bearer ${await token({ scope: 'notes:admin', acr: 'urn:gatehouse:acr:password' })}` });
  assert.equal(weak.ok === false && weak.status, 401);
  assert.match(challengeOf(weak), /error="insufficient_user_authentication"/);
  assert.match(challengeOf(weak), /acr_values="urn:gatehouse:acr:mfa"/);
  assert.match(challengeOf(weak), /resource_metadata="/);
  const strong = await get('/mcp/admin', { authorization: `Bearer ${await token({ scope: 'notes:admin', acr: 'urn:gatehouse:acr:mfa' })}` });
  assert.equal(strong.ok, true);
});

test('route conflict: when the rules that may apply demand disjoint acr sets, no token passes (403), not even one with either acr', async () => {
  const conflicting = resourceServer({
    issuer: ISSUER,
    resource: RESOURCE,
    jwksUrl: jwks.url,
    routes: ['* /mcp/vault*=;acr=urn:gatehouse:acr:mfa', '* /mcp/Vault*=;acr=urn:gatehouse:acr:hwk'],
  });
  const result = await conflicting.verifyRequest({
    method: 'GET',
    url: '/mcp/Vault/x',
    headers: { authorization: `Bearer ${await token({ acr: 'urn:gatehouse:acr:mfa' })}` },
  });
  assert.equal(result.ok === false && result.status, 403);
  assert.equal(result.ok === false && result.reason, 'route_conflict');
});

test('ambiguous path: verifyRequest refuses a path upstreams read differently with 400 invalid_request before the token', async () => {
  const result = await get('/mcp/notes/..;/admin', {});
  assert.equal(result.ok === false && result.status, 400);
  assert.equal(result.ok === false && result.reason, 'ambiguous_path');
  assert.equal(result.ok === false && result.error, 'invalid_request');
});

test('token in the query: refused next to the header (one place only), and never accepted alone', async () => {
  const both = await get(`/mcp/notes?access_token=${await token()}`, { authorization: `Bearer ${await token()}` });
  assert.equal(both.ok === false && both.status, 400);
  const alone = await get(`/mcp/notes?access_token=${await token()}`, {});
  assert.equal(alone.ok === false && alone.reason, 'missing_token');
});

test('revocation: the checker is asked, and a revoked token is refused', async () => {
  const jti = crypto.randomUUID();
  const t = await token({ jti });
  assert.equal((await get('/mcp/notes', { authorization: `Bearer ${t}` })).ok, true);
  revoked.add(jti);
  const result = await get('/mcp/notes', { authorization: `Bearer ${t}` });
  assert.equal(result.ok === false && result.reason, 'revoked');
});

test('DPoP binding: a cnf.jkt-bound token needs the DPoP scheme and a proof of that key for this request', async () => {
  const key = await dpopKey();
  const jkt = await calculateJwkThumbprint(key.jwk);
  const bound = await token({ cnf: { jkt } });
  const asBearer = await get('/mcp/notes', { authorization: `Bearer ${bound}` });
  assert.equal(asBearer.ok === false && asBearer.reason, 'dpop_binding');
  assert.match(challengeOf(asBearer), /^DPoP algs="ES256 RS256 PS256", error="invalid_token"/);
  const noProof = await get('/mcp/notes', { authorization: `DPoP ${bound}` });
  assert.equal(noProof.ok === false && noProof.reason, 'dpop_proof');
  const htu = 'https://notes.test/mcp/notes';
  const other = await dpopKey();
  const wrongKey = await get('/mcp/notes', { authorization: `DPoP ${bound}`, dpop: await dpopProof(other, htu, { htm: 'GET', ath: sha256(bound) }) });
  assert.equal(wrongKey.ok === false && wrongKey.reason, 'dpop_proof');
  const proof = await dpopProof(key, htu, { htm: 'GET', ath: sha256(bound) });
  const good = await get('/mcp/notes', { authorization: `DPoP ${bound}`, dpop: proof });
  assert.equal(good.ok, true);
  const replay = await get('/mcp/notes', { authorization: `DPoP ${bound}`, dpop: proof });
  assert.equal(replay.ok === false && replay.reason, 'dpop_proof', 'a proof is accepted once');
});

test('keys unavailable: a JWKS that cannot be fetched is 503 with Retry-After, not the token’s fault', async () => {
  const down = resourceServer({ issuer: ISSUER, resource: RESOURCE, jwksUrl: 'http://127.0.0.1:9/jwks.json' });
  const result = await down.verifyRequest({ method: 'GET', url: '/mcp/notes', headers: { authorization: `Bearer ${await token()}` } });
  assert.equal(result.ok === false && result.status, 503);
  assert.equal(result.ok === false && result.headers['retry-after'], '5');
});

test('route syntax: METHOD PATH=SCOPES[;acr=…], errors name the rule', () => {
  assert.deepEqual(parseRoute('GET,HEAD /notes*=notes:read notes:list'), {
    methods: ['GET', 'HEAD'],
    path: '/notes',
    prefix: true,
    scopes: ['notes:read', 'notes:list'],
    acr: [],
    source: 'GET,HEAD /notes*=notes:read notes:list',
  });
  assert.throws(() => parseRoute('GET notes=x'), RouteSyntaxError);
  assert.throws(() => parseRoute('/notes=x'), RouteSyntaxError);
  assert.throws(() => parseRoute('GET /n*tes=x'), RouteSyntaxError);
  assert.throws(() => parseRoute('GET /notes=x;mfa'), RouteSyntaxError);
});

test('the Fastify plugin serves the metadata document, refuses with the challenge and an OAuth error body, and sets request.gatehouse', async () => {
  const app = Fastify();
  await app.register(async (scope) => {
    await scope.register(gatehouseResourceServer, { resourceServer: server });
    scope.get('/mcp/notes', async (request) => ({ sub: request.gatehouse?.sub }));
  });
  try {
    const metadata = await app.inject({ url: '/.well-known/oauth-protected-resource/mcp' });
    assert.equal(metadata.statusCode, 200);
    assert.deepEqual(metadata.json().authorization_servers, [ISSUER]);
    assert.equal(metadata.json().resource, RESOURCE);
    const refused = await app.inject({ url: '/mcp/notes' });
    assert.equal(refused.statusCode, 401);
    assert.match(String(refused.headers['www-authenticate']), /resource_metadata=/);
    assert.equal(refused.json().error, 'unauthorized');
    const ok = await app.inject({ url: '/mcp/notes', headers: { authorization: `Bearer ${await token({ sub: 'bob' })}` } });
    assert.deepEqual(ok.json(), { sub: 'bob' });
  } finally {
    await app.close();
  }
});

/** GET `path` exactly as written (fetch would resolve dot segments first) from a listening server. */
function rawGet(origin: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = rawRequest({ host: hostname, port, path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('in process, dot and empty segments refused: the Fastify plugin does not let files:read reach the /files/secret/* handler through /files/secret/../x', async () => {
  const files = resourceServer({
    issuer: ISSUER,
    resource: RESOURCE,
    jwksUrl: jwks.url,
    routes: ['GET /files/*=files:read', 'GET /files/secret/*=files:admin'],
  });
  const app = Fastify();
  await app.register(async (scope) => {
    await scope.register(gatehouseResourceServer, { resourceServer: files });
    scope.get('/files/secret/*', async () => ({ served: 'secret' }));
    scope.get('/files/*', async () => ({ served: 'files' }));
  });
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const authorization = `Bearer ${await token({ scope: 'files:read' })}`;
    assert.deepEqual((await rawGet(origin, '/files/x', { authorization })).body, { served: 'files' });
    assert.equal((await rawGet(origin, '/files/secret/x', { authorization })).status, 403, 'the rule for the secret handler holds');
    for (const path of ['/files/secret/../x', '/files/secret/%2e%2e/x', '/files/secret/%2E./x', '/files/secret/./x', '/files/secret//x', '/files//secret/x']) {
      const answer = await rawGet(origin, path, { authorization });
      assert.equal(answer.status, 400, path);
      assert.equal(answer.body.error, 'invalid_request', path);
    }
    assert.equal((await rawGet(origin, '/files/a/', { authorization })).status, 200, 'a trailing slash is not an empty segment');
  } finally {
    await app.close();
  }
});
