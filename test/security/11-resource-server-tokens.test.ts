// Security suite, area 11: JWT access-token validation at the real /v1 routes (RFC 6750; RFC 9068 §4; RFC 8725).
// Claim variants are signed with the AS's own key (so only the claim can be at fault); algorithm attacks use
// nothing but what an attacker has: the public JWKS. The header-by-header family with a test-controlled key
// is in test/resource-server/auth/forged-tokens.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, randomUUID } from 'node:crypto';
import { base64url, decodeJwt, exportSPKI, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { manualClock } from '../../src/clock.js';
import { REVOCATION_PROMISE_MS } from '../../src/storage/repositories/revocation-feed.js';
import { bearer, startWorld, tokensFor, type World } from './helpers/world.js';

const clock = manualClock();
let w: World;
let audience: string;
let publicKeys: Array<JWK & { kid: string }>;
before(async () => {
  w = await startWorld({ clock });
  audience = w.t.config.API_AUDIENCE;
  publicKeys = ((await (await fetch(`${w.url}/.well-known/jwks.json`)).json()) as { keys: Array<JWK & { kid: string }> }).keys;
});
after(() => w.close());

const now = () => Math.floor(Date.now() / 1000);
const b64 = (v: unknown) => base64url.encode(typeof v === 'string' ? v : JSON.stringify(v));

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = {
    iss: w.url,
    sub: w.U1.id,
    aud: audience,
    exp: now() + 300,
    iat: now(),
    jti: randomUUID(),
    client_id: w.A.id,
    scope: 'users:read orders:read',
    auth_time: now(),
  };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return base;
}

/** Signed by the authorization server's real ES256 key. */
const asSigned = (payload: Record<string, unknown>, typ = 'at+jwt') => w.t.core.keys.sign(payload, { alg: 'ES256', typ });

const ROUTES = ['/v1/users/me', `/v1/orders`];
const me = (token: string, init: RequestInit = {}) => bearer(w, '/v1/users/me', token, init);

async function assert401(response: Response, why: string): Promise<void> {
  assert.equal(response.status, 401, `${why}: ${response.status}`);
  const challenge = response.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer/, why);
  assert.doesNotMatch(challenge, /[\r\n]/);
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
}

describe('11. resource server token validation', () => {
  test('11.121 a valid at+jwt from the AS (aud = RS, or an array containing RS; required scope) → 200', async () => {
    const t = await tokensFor(w, w.A, { scope: 'openid offline_access users:read orders:read' });
    for (const path of ROUTES) assert.equal((await bearer(w, path, t.access_token)).status, 200, path);
    assert.equal((await me(await asSigned(claims({ aud: ['https://other.example', audience] })))).status, 200);
  });

  test('11.122 no Authorization header, or a non-Bearer scheme → 401 with a bare Bearer challenge', async () => {
    for (const path of ROUTES) {
      for (const headers of [
        {},
        { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
        { authorization: 'Token abc' },
        { authorization: 'Bearer' },
        { authorization: '' },
      ] as Array<Record<string, string>>) {
        const response = await fetch(`${w.url}${path}`, { headers });
        assert.equal(response.status, 401, `${path} ${JSON.stringify(headers)}`);
        const challenge = response.headers.get('www-authenticate') ?? '';
        assert.match(challenge, /^Bearer/);
        if (!headers.authorization || /^(Basic|Token)/.test(headers.authorization)) assert.doesNotMatch(challenge, /error=/);
      }
    }
  });

  test('11.124 token only in the query (?access_token=) → 401', async () => {
    const t = await tokensFor(w, w.A, { scope: 'openid users:read' });
    assert.equal((await fetch(`${w.url}/v1/users/me?access_token=${t.access_token}`)).status, 401);
  });

  test('11.125 token in the header and also in the query → 400 error="invalid_request"', async () => {
    const t = await tokensFor(w, w.A, { scope: 'openid users:read' });
    const response = await bearer(w, `/v1/users/me?access_token=${t.access_token}`, t.access_token);
    assert.equal(response.status, 400);
    assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_request"/);
  });

  test('11.127 alg none, None, NONE, nOnE with an empty signature → 401', async () => {
    for (const alg of ['none', 'None', 'NONE', 'nOnE'])
      await assert401(await me(`${b64({ alg, typ: 'at+jwt', kid: publicKeys[0]!.kid })}.${b64(claims())}.`), alg);
  });

  test('11.128 HS256 keyed with the AS public key (JWK JSON, PEM, DER, modulus) → 401', async () => {
    for (const jwk of publicKeys) {
      const pem = await exportSPKI((await importJWK(jwk, jwk.alg)) as CryptoKey);
      const der = createPublicKey(pem).export({ type: 'spki', format: 'der' });
      const secrets = [Buffer.from(JSON.stringify(jwk)), Buffer.from(pem), der, Buffer.from(jwk.n ?? jwk.x ?? '', 'base64url')];
      for (const secret of secrets) {
        const forged = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: jwk.kid }).sign(new Uint8Array(secret));
        await assert401(await me(forged), `HS256 with ${jwk.kid}`);
      }
    }
  });

  test('11.128 an algorithm outside the allow-list (the AS RS256 id_token key signing an at+jwt) → 401', async () => {
    // The AS holds an RS256 key for id_tokens; an access token signed by it must still be refused (ES256 pinned).
    const forged = await w.t.core.keys.sign(claims(), { alg: 'RS256', typ: 'at+jwt' });
    await assert401(await me(forged), 'RS256');
  });

  test('11.128 ES256 r = s = 0 "psychic" signature → 401 (CVE-2022-21449)', async () => {
    const es = publicKeys.find((k) => k.kty === 'EC')!;
    await assert401(await me(`${b64({ alg: 'ES256', typ: 'at+jwt', kid: es.kid })}.${b64(claims())}.${base64url.encode(new Uint8Array(64))}`), 'psychic');
  });

  test('11.130 unknown kid → 401; 100 such requests, no 5xx', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        me(`${b64({ alg: 'ES256', typ: 'at+jwt', kid: `unknown-${i}` })}.${b64(claims())}.${base64url.encode(new Uint8Array(64).fill(1))}`),
      ),
    );
    for (const r of results) assert.equal(r.status, 401);
    assert.equal((await fetch(`${w.url}/healthz`)).status, 200);
  });

  test('11.131 kid injection (path, SQL, shell, URL, 10 KB) → 401 invalid_token, no 5xx', async () => {
    for (const kid of ['../../../../dev/null', "' OR '1'='1", '$(id)', 'https://evil.example/jwks.json', 'k'.repeat(10_240), '\u0000']) {
      await assert401(
        await me(`${b64({ alg: 'ES256', typ: 'at+jwt', kid })}.${b64(claims())}.${base64url.encode(new Uint8Array(64).fill(7))}`),
        kid.slice(0, 20),
      );
    }
  });

  test('11.133 typ JWT or JOSE (genuine AS signature) → 401', async () => {
    for (const typ of ['JWT', 'JOSE', 'jwt', 'application/jwt']) await assert401(await me(await asSigned(claims(), typ)), typ);
  });

  test('11.134 typ application/at+jwt or AT+JWT → 200 (media type compared case-insensitively)', async () => {
    for (const typ of ['application/at+jwt', 'AT+JWT', 'at+jwt']) assert.equal((await me(await asSigned(claims(), typ))).status, 200, typ);
  });

  test('11.136 a genuine AS-signed id_token sent as the Bearer token → 401', async () => {
    const t = await tokensFor(w, w.A, { scope: 'openid users:read' });
    await assert401(await me(t.id_token!), 'id_token');
  });

  test('11.137 aud missing, aud for another RS, or an aud array without RS → 401', async () => {
    for (const aud of [undefined, 'https://other.example/v1', [w.url], ['https://a.example', 'https://b.example'], `${audience}/`, w.url]) {
      await assert401(await me(await asSigned(claims({ aud }))), JSON.stringify(aud));
    }
  });

  test('11.139 exp missing, a string, in ms; nbf in the future; missing sub, client_id, iat or jti → 401', async () => {
    const variants: Record<string, Record<string, unknown>> = {
      'exp missing': { exp: undefined },
      'exp string': { exp: '9999999999' },
      'exp in ms': { exp: Date.now() - 10 * 60 * 1000 },
      'exp past': { exp: now() - 3600 },
      'nbf future': { nbf: now() + 3600 },
      'iat future': { iat: now() + 3600 },
      'sub missing': { sub: undefined },
      'client_id missing': { client_id: undefined },
      'iat missing': { iat: undefined },
      'jti missing': { jti: undefined },
      'iss other': { iss: 'https://evil.example' },
      'iss with trailing slash': { iss: `${w.url}/` },
      'scope not a string': { scope: ['users:read'] },
    };
    for (const [name, overrides] of Object.entries(variants)) await assert401(await me(await asSigned(claims(overrides))), name);
  });

  test('11.140 crit:["x-unknown"], crit:[], crit naming alg; a 5-segment JWE; zip → 401', async () => {
    const es = publicKeys.find((k) => k.kty === 'EC')!;
    for (const extra of [{ crit: ['x-unknown'], 'x-unknown': 1 }, { crit: [] }, { crit: ['alg'] }, { zip: 'DEF' }]) {
      await assert401(
        await me(`${b64({ alg: 'ES256', typ: 'at+jwt', kid: es.kid, ...extra })}.${b64(claims())}.${base64url.encode(new Uint8Array(64).fill(3))}`),
        JSON.stringify(extra),
      );
    }
    await assert401(await me(`${b64({ alg: 'RSA-OAEP-256', enc: 'A256GCM' })}.AAAA.AAAA.AAAA.AAAA`), 'JWE');
  });

  test('11.142 valid token without the required scope → 403 Bearer error="insufficient_scope", scope="<needed>"', async () => {
    const response = await me(await asSigned(claims({ scope: 'orders:read' })));
    assert.equal(response.status, 403);
    const challenge = response.headers.get('www-authenticate') ?? '';
    assert.match(challenge, /error="insufficient_scope"/);
    assert.match(challenge, /scope="users:read"/);
  });

  test('11.143 any 401/403 description has no CR/LF and does not echo token contents', async () => {
    const marker = 'ECHO-MARKER-7f3a';
    const tokens = [
      await asSigned(claims({ exp: now() - 3600, sub: marker })),
      await asSigned(claims({ scope: marker })),
      `${b64({ alg: 'none', kid: marker })}.${b64({ sub: marker })}.`,
      `${marker}\r\nX: y`,
    ];
    for (const token of tokens) {
      const response = await fetch(`${w.url}/v1/users/me`, { headers: { authorization: `Bearer ${token.replace(/[\r\n]/g, '')}` } });
      assert.ok([401, 403].includes(response.status));
      const text = `${response.headers.get('www-authenticate')}\n${await response.text()}`;
      assert.doesNotMatch(text, new RegExp(marker));
      assert.doesNotMatch(response.headers.get('www-authenticate') ?? '', /[\r\n]/);
    }
  });

  test('11.145 access token revoked at the AS → 401 at the RS at once, even one the RS verified a moment before (another instance within 1 s)', async () => {
    const used = await tokensFor(w, w.A, { scope: 'openid users:read' });
    const unused = await tokensFor(w, w.A, { scope: 'openid users:read' });
    assert.equal((await me(used.access_token)).status, 200);
    assert.equal((await me(used.access_token)).status, 200, 'now in the verified-token cache');
    for (const t of [used, unused])
      assert.equal((await postForm(`${w.url}/revoke`, { token: t.access_token }, { authorization: basicAuth(w.A.id, w.A.secret) })).status, 200);
    await assert401(await me(unused.access_token), 'revoked, never seen by the RS');
    await assert401(await me(used.access_token), 'revoked while cached: no re-check interval to wait out on this instance');
  });

  test('11.145+ a revocation written by another instance reaches a cached token within the 1 s propagation promise', async () => {
    const used = await tokensFor(w, w.A, { scope: 'openid users:read' });
    assert.equal((await me(used.access_token)).status, 200);
    assert.equal((await me(used.access_token)).status, 200, 'now in the verified-token cache');
    const { jti, exp } = decodeJwt(used.access_token) as { jti: string; exp: number };
    // Written straight to the shared table, as another instance's /revoke would: the database announces it
    // (docs/revocation-feed.md), so no re-check interval has to pass. Polled against a deadline, not slept.
    await w.t.core.db
      .insertInto('revoked_access_tokens')
      .values({ jti, expires_at: new Date(exp * 1000), revoked_at: new Date(clock.now()) })
      .execute();
    const deadline = performance.now() + REVOCATION_PROMISE_MS * 5;
    let status = (await me(used.access_token)).status;
    while (status === 200 && performance.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      status = (await me(used.access_token)).status;
    }
    await assert401(await me(used.access_token), 'refused once the announcement arrived');
  });

  test('11.145+ the documented maximum access-token lifetime is ≤ 10 min (exp - iat)', async () => {
    const t = await tokensFor(w, w.A, { scope: 'openid users:read' });
    const payload = JSON.parse(Buffer.from(t.access_token.split('.')[1]!, 'base64url').toString()) as { exp: number; iat: number };
    assert.ok(payload.exp - payload.iat <= 600);
  });

  test('11.146 DPoP: a DPoP-bound token (cnf.jkt) sent with the Bearer scheme, or with the DPoP scheme and no proof → 401 with a DPoP challenge', async () => {
    const t = await asSigned(claims({ cnf: { jkt: 'x'.repeat(43) } }));
    const asBearer = await bearer(w, '/v1/users/me', t);
    assert.equal(asBearer.status, 401);
    assert.match(asBearer.headers.get('www-authenticate') ?? '', /^DPoP algs="[^"]+", error="invalid_token"/);
    const noProof = await fetch(`${w.url}/v1/users/me`, { headers: { authorization: `DPoP ${t}` } });
    assert.equal(noProof.status, 401);
    assert.match(noProof.headers.get('www-authenticate') ?? '', /^DPoP algs="[^"]+", error="invalid_dpop_proof"/);
  });

  test('11.x a token for U1 never reaches U2’s user object (object-level check: 404)', async () => {
    const t = await asSigned(claims({ scope: 'users:read' }));
    const response = await bearer(w, `/v1/users/${w.U2.id}`, t);
    assert.equal(response.status, 404);
  });
});
