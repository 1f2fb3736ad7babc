// Every forged-token case of RFC 8725 / RFC 9068 §4 against a resource route, with an attacker- or
// test-controlled key published at the JWKS_URL the API trusts, so each header and claim can be chosen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { CompactEncrypt, exportJWK, exportSPKI, generateKeyPair, type JWK } from 'jose';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { installApiConventions } from '../../../src/resource-server/conventions.js';
import { requireScope, resourceServerAuth } from '../../../src/resource-server/auth/index.js';
import { b64, claims, rawJws, sign, startJwksServer, testIssuerKeys, type JwksServer, type TestIssuerKeys } from './forge.js';

let t: TestApp;
let jwks: JwksServer;
let keys: TestIssuerKeys;
let published: JWK[];

before(async () => {
  keys = await testIssuerKeys();
  published = [keys.publicJwk, keys.rsa.publicJwk];
  jwks = await startJwksServer(() => published);
  t = await startTestApp({
    env: { JWKS_URL: jwks.url },
    configure(app) {
      const auth = resourceServerAuth(app.core, { jwksUrl: jwks.url });
      app.register(
        async (api) => {
          installApiConventions(api, auth);
          const whoami = async (request: { principal?: { sub: string; kind: string } }) => ({ sub: request.principal!.sub, kind: request.principal!.kind });
          api.get('/whoami', { preHandler: requireScope('users:read') }, whoami);
          api.post('/whoami', { preHandler: requireScope('users:read') }, whoami);
          api.get('/admin', { preHandler: requireScope('users:write', 'orders:read') }, whoami);
        },
        { prefix: '/probe' },
      );
    },
  });
});
after(async () => {
  await t.close();
  await jwks.close();
});

const good = (overrides: Record<string, unknown> = {}) => claims(t.config.ISSUER, t.config.API_AUDIENCE, overrides);
const es256 = (payload = good(), header: Record<string, unknown> = {}) =>
  sign(payload, keys.privateKey, { alg: 'ES256', typ: 'at+jwt', kid: keys.kid, ...header });

async function call(token: string | undefined, init: RequestInit & { path?: string } = {}) {
  const headers = new Headers(init.headers);
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
  return fetch(`${t.url}/probe${init.path ?? '/whoami'}`, { ...init, headers });
}

/** 401 with an RFC 6750 invalid_token challenge, a problem body, and nothing of the token echoed. */
async function assertInvalidToken(res: Response, token: string) {
  const text = await res.text();
  assert.equal(res.status, 401, text);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer error="invalid_token"/);
  assert.doesNotMatch(challenge, /[\r\n]/);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = JSON.parse(text) as { code: string };
  assert.equal(body.code, 'invalid-token');
  for (const part of token.split('.').filter((p) => p.length > 8)) {
    assert.ok(!text.includes(part) && !challenge.includes(part), 'token contents echoed');
  }
}

test('a valid at+jwt from the trusted JWKS is accepted, and its principal is a user', async () => {
  const res = await call(await es256());
  assert.equal(res.status, 200, await res.clone().text());
  assert.deepEqual(await res.json(), { sub: 'user-1', kind: 'user' });
});

test('aud may be an array that contains this API', async () => {
  const res = await call(await es256(good({ aud: ['https://other.example', t.config.API_AUDIENCE] })));
  assert.equal(res.status, 200);
});

test('a client_credentials token (sub = client_id, no auth_time) is a service principal', async () => {
  const res = await call(await es256(good({ sub: 'svc', client_id: 'svc', auth_time: undefined })));
  assert.deepEqual(await res.json(), { sub: 'svc', kind: 'service' });
});

test('the Bearer scheme is case-insensitive', async () => {
  const token = await es256();
  const res = await fetch(`${t.url}/probe/whoami`, { headers: { authorization: `bEaReR ${token}` } });
  assert.equal(res.status, 200);
});

test('no Authorization header answers 401 with a bare Bearer challenge and no error attribute', async () => {
  const res = await call(undefined);
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), 'Bearer');
  assert.equal(((await res.json()) as { code: string }).code, 'unauthorized');
});

test('a non-Bearer scheme (Basic, Token) answers 401 with a bare Bearer challenge', async () => {
  for (const authorization of ['Basic dXNlcjpwYXNz', `Token ${await es256()}`]) {
    const res = await fetch(`${t.url}/probe/whoami`, { headers: { authorization } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
  }
});

test('a token only in the query (?access_token=) is not accepted: 401', async () => {
  const res = await fetch(`${t.url}/probe/whoami?access_token=${await es256()}`);
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), 'Bearer');
});

test('a token in the header and the query answers 400 invalid_request', async () => {
  const token = await es256();
  const res = await call(token, { path: `/whoami?access_token=${token}` });
  assert.equal(res.status, 400);
  assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_request"/);
  assert.equal(((await res.json()) as { code: string }).code, 'invalid-request');
});

test('a token in the header and a form body answers 400 invalid_request', async () => {
  const token = await es256();
  const res = await call(token, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `access_token=${token}`,
  });
  assert.equal(res.status, 400);
  assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_request"/);
});

test('a token only in a form body is not accepted: 401', async () => {
  const res = await fetch(`${t.url}/probe/whoami`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `access_token=${await es256()}`,
  });
  assert.equal(res.status, 401);
});

test('alg none in every spelling, with an empty signature, is refused', async () => {
  for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
    const token = rawJws({ alg, typ: 'at+jwt', kid: keys.kid }, good());
    await assertInvalidToken(await call(token), token);
  }
});

test('HS256 keyed with the public key (JWK JSON, PEM, DER, x coordinate) is refused: algorithm confusion', async () => {
  const publicKey = createPublicKey({ key: keys.publicJwk as never, format: 'jwk' });
  const pem = await exportSPKI(publicKey as never);
  const secrets = [
    JSON.stringify(keys.publicJwk),
    pem,
    publicKey.export({ format: 'der', type: 'spki' }),
    Buffer.from(keys.publicJwk.x!, 'base64url'),
  ];
  for (const secret of secrets) {
    const token = await sign(good(), new Uint8Array(Buffer.from(secret)), { alg: 'HS256', typ: 'at+jwt', kid: keys.kid });
    await assertInvalidToken(await call(token), token);
  }
});

test('RS256 and PS256 are outside the pinned algorithm list even with a published key: refused', async () => {
  const rs256 = await sign(good(), keys.rsa.privateKey, { alg: 'RS256', typ: 'at+jwt', kid: keys.rsa.kid });
  await assertInvalidToken(await call(rs256), rs256);
  const ps = await generateKeyPair('PS256', { extractable: true });
  published.push({ ...(await exportJWK(ps.publicKey)), kid: 'test-ps', alg: 'PS256', use: 'sig' });
  const ps256 = await sign(good(), ps.privateKey, { alg: 'PS256', typ: 'at+jwt', kid: 'test-ps' });
  await assertInvalidToken(await call(ps256), ps256);
});

test('the r = s = 0 "psychic signature" on ES256 is refused (CVE-2022-21449)', async () => {
  const token = rawJws({ alg: 'ES256', typ: 'at+jwt', kid: keys.kid }, good(), Buffer.alloc(64).toString('base64url'));
  await assertInvalidToken(await call(token), token);
});

test('a tampered payload under a genuine signature is refused', async () => {
  const [h, , s] = (await es256()).split('.');
  const token = `${h}.${b64(good({ scope: 'users:read users:write' }))}.${s}`;
  await assertInvalidToken(await call(token), token);
});

test('typ missing, JWT or JOSE is refused: explicit typing required', async () => {
  for (const typ of [undefined, 'JWT', 'JOSE', 'jwt']) {
    const token = await sign(good(), keys.privateKey, { alg: 'ES256', kid: keys.kid, ...(typ ? { typ } : {}) });
    await assertInvalidToken(await call(token), token);
  }
});

test('typ application/at+jwt and AT+JWT are accepted (media type compared case-insensitively)', async () => {
  for (const typ of ['application/at+jwt', 'AT+JWT', 'Application/AT+JWT']) {
    const res = await call(await es256(good(), { typ }));
    assert.equal(res.status, 200, typ);
  }
});

test('an id_token (typ JWT, aud = client_id) sent as the bearer token is refused', async () => {
  const idToken = await sign(good({ aud: 'client-1', nonce: 'n', scope: undefined }), keys.privateKey, { alg: 'ES256', typ: 'JWT', kid: keys.kid });
  await assertInvalidToken(await call(idToken), idToken);
  const idTokenAtTyp = await es256(good({ aud: 'client-1' }));
  await assertInvalidToken(await call(idTokenAtTyp), idTokenAtTyp);
});

test('aud missing, for another API, or an array without this API is refused', async () => {
  for (const aud of [undefined, 'https://other.example/v1', ['https://a.example', 'https://b.example'], `${t.config.API_AUDIENCE}/`]) {
    const token = await es256(good({ aud }));
    await assertInvalidToken(await call(token), token);
  }
});

test('iss of another issuer, or differing only by a trailing slash, is refused', async () => {
  for (const iss of ['https://evil.example', `${t.config.ISSUER}/`, undefined]) {
    const token = await es256(good({ iss }));
    await assertInvalidToken(await call(token), token);
  }
});

test('exp missing, a string, in milliseconds, or in the past beyond the skew is refused', async () => {
  const now = Math.floor(Date.now() / 1000);
  for (const exp of [undefined, String(now + 300), (now + 300) * 1000, now - t.config.CLOCK_SKEW - 5]) {
    const token = await es256(good({ exp }));
    await assertInvalidToken(await call(token), token);
  }
});

test('exp just past but within the documented clock skew is accepted', async () => {
  const now = Math.floor(Date.now() / 1000);
  const res = await call(await es256(good({ iat: now - 60, exp: now - 5 })));
  assert.equal(res.status, 200);
});

test('nbf beyond the skew in the future is refused; iat in the future beyond the skew is refused', async () => {
  const now = Math.floor(Date.now() / 1000);
  for (const extra of [{ nbf: now + t.config.CLOCK_SKEW + 30 }, { iat: now + t.config.CLOCK_SKEW + 30 }]) {
    const token = await es256(good(extra));
    await assertInvalidToken(await call(token), token);
  }
});

test('a missing sub, client_id, iat or jti is refused, and so are those claims with the wrong JSON type', async () => {
  const cases = [{ sub: undefined }, { client_id: undefined }, { iat: undefined }, { jti: undefined }, { sub: 42 }, { client_id: ['x'] }, { iat: '1700000000' }, { jti: '' }, { scope: ['users:read'] }];
  for (const overrides of cases) {
    const token = await es256(good(overrides));
    await assertInvalidToken(await call(token), token);
  }
});

test('crit headers (unknown, empty, naming alg) and zip are refused', async () => {
  for (const extra of [{ crit: ['x-unknown'], 'x-unknown': 1 }, { crit: [] }, { crit: ['alg'] }, { zip: 'DEF' }]) {
    const header = { alg: 'ES256', typ: 'at+jwt', kid: keys.kid, ...extra };
    // jose will not sign some of these headers, so sign the bytes through a crafted input where needed.
    const token = await signRaw(header, good());
    await assertInvalidToken(await call(token), token);
  }
});

test('a 5-segment JWE is refused when no encryption is configured', async () => {
  const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(good())))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: keys.kid, typ: 'at+jwt' })
    .encrypt(new Uint8Array(32));
  await assertInvalidToken(await call(jwe), jwe);
});

test('an expired token is refused with a 401 that says so without echoing it', async () => {
  const now = Math.floor(Date.now() / 1000);
  const token = await es256(good({ iat: now - 900, exp: now - 600 }));
  const res = await call(token);
  await assertInvalidToken(res, token);
});

test('a DPoP-bound token (cnf.jkt) sent with the Bearer scheme is refused with a DPoP challenge (RFC 9449 §7.1)', async () => {
  const token = await es256(good({ cnf: { jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I' } }));
  const res = await call(token);
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /^DPoP algs="ES256 RS256 PS256", error="invalid_token"/);
  assert.equal(((await res.json()) as { code: string }).code, 'invalid-token');
});

test('a cnf other than one JWK thumbprint (jkt) is not understood: 401 invalid_token', async () => {
  for (const cnf of [{ 'x5t#S256': 'abc' }, { jkt: 'short' }, { jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I', extra: 1 }, 'jkt']) {
    const token = await es256(good({ cnf }));
    await assertInvalidToken(await call(token), token);
  }
});

test('a valid token without the route scope answers 403 insufficient_scope naming every required scope', async () => {
  const res = await call(await es256(good({ scope: 'users:read users:write' })), { path: '/admin' });
  assert.equal(res.status, 403);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer error="insufficient_scope"/);
  assert.match(challenge, /scope="users:write orders:read"/);
  assert.equal(((await res.json()) as { code: string }).code, 'insufficient-scope');
});

test('unknown kids cause at most one JWKS refresh at the issuer, however many requests: no amplification', async () => {
  const before = jwks.fetches();
  const other = await testIssuerKeys();
  const tokens = await Promise.all(
    Array.from({ length: 100 }, (_, i) => sign(good(), other.privateKey, { alg: 'ES256', typ: 'at+jwt', kid: `unknown-${i}` })),
  );
  const responses = await Promise.all(tokens.map((token) => call(token)));
  for (const res of responses) assert.equal(res.status, 401);
  assert.ok(jwks.fetches() - before <= 2, `JWKS fetched ${jwks.fetches() - before} times for 100 unknown kids`);
});

test('kid injection strings answer 401 invalid_token, never 5xx, and fetch nothing extra', async () => {
  const before = jwks.fetches();
  for (const kid of ['../../../../dev/null', "' OR '1'='1", '$(id)', 'https://evil.example/jwks.json', 'k'.repeat(10_240), '\u0000', '{}']) {
    const token = await sign(good(), keys.privateKey, { alg: 'ES256', typ: 'at+jwt', kid });
    const res = await call(token);
    assert.ok(res.status === 401 || res.status === 400, `status ${res.status}`);
    if (res.status === 401) assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
  }
  assert.ok(jwks.fetches() - before <= 1);
});

test('garbage bearer values answer 401 invalid_token, never 5xx', async () => {
  for (const token of ['abc', 'a.b.c', '...', `${'a'.repeat(9000)}`, 'eyJhbGciOiJFUzI1NiJ9.e30', `${b64('{"alg":')}.e30.sig`]) {
    const res = await call(token);
    assert.equal(res.status, 401, token.slice(0, 20));
  }
});

test('401 and 403 descriptions carry no CR/LF even when the request is hostile', async () => {
  const token = rawJws({ alg: 'ES256\r\nX-Evil: 1', typ: 'at+jwt', kid: 'a\r\nb' }, good(), 'AAAA');
  const res = await call(token);
  assert.equal(res.status, 401);
  assert.doesNotMatch(res.headers.get('www-authenticate') ?? '', /[\r\n]/);
  assert.equal(res.headers.get('x-evil'), null);
});

/** Signs arbitrary protected-header bytes with the trusted key (jose refuses to build crit/zip headers). */
async function signRaw(header: Record<string, unknown>, payload: unknown): Promise<string> {
  const { subtle } = globalThis.crypto;
  const input = `${b64(header)}.${b64(payload)}`;
  const signature = await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, keys.privateKey, new TextEncoder().encode(input));
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}
