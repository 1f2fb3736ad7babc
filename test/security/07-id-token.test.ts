// Security suite, area 7: the id_token (OIDC Core §2, §3.1.3.6, §3.1.3.7, §5.4, §10.1), verified with openid-client
// and jose against the published JWKS.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { authorize, authorizeUrl, bearer, exchange, REG, startWorld, tokensFor, type World } from './helpers/world.js';
import { loginAndConsent } from '../interaction/browserless.js';
import { Browser } from '../helpers/browser.js';
import { pkcePair } from '../helpers/pkce.js';

let w: World;
before(async () => {
  w = await startWorld();
});
after(() => w.close());

const PROFILE_CLAIMS = [
  'name',
  'given_name',
  'family_name',
  'middle_name',
  'nickname',
  'preferred_username',
  'profile',
  'picture',
  'website',
  'gender',
  'birthdate',
  'zoneinfo',
  'locale',
  'updated_at',
];
const OTHER_CLAIMS = ['email', 'email_verified', 'phone_number', 'phone_number_verified', 'address'];

describe('7. id_token', () => {
  test('7.85-91 openid-client validates the whole code flow (iss, aud, nonce, signature via jwks_uri)', async () => {
    const config = await client.discovery(new URL(w.url), w.A.id, undefined, client.ClientSecretBasic(w.A.secret), { execute: [client.allowInsecureRequests] });
    const verifier = client.randomPKCECodeVerifier();
    const challenge = await client.calculatePKCECodeChallenge(verifier);
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REG,
      scope: 'openid profile',
      state,
      nonce,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const location = await loginAndConsent(new Browser(w.url), url.pathname + url.search, w.U1);
    const tokens = await client.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    const claims = tokens.claims()!;
    assert.equal(claims.iss, w.url);
    assert.equal(claims.sub, w.U1.id);
  });

  test('7.85 iss equals ISS byte-exact (discovery issuer, no trailing slash added or dropped)', async () => {
    const t = await tokensFor(w, w.A);
    const discovery = (await (await fetch(`${w.url}/.well-known/openid-configuration`)).json()) as { issuer: string };
    assert.equal(decodeJwt(t.id_token!).iss, discovery.issuer);
    assert.equal(discovery.issuer, w.t.config.ISSUER);
  });

  test('7.86 aud contains client_id; single audience, so azp is absent or equals client_id', async () => {
    const claims = decodeJwt((await tokensFor(w, w.A)).id_token!);
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    assert.ok(aud.includes(w.A.id));
    if (aud.length > 1 || claims.azp !== undefined) assert.equal(claims.azp, w.A.id);
  });

  test('7.88 nonce equals the request nonce byte-exact, including unusual characters', async () => {
    const nonce = 'n-ü 😀 "quoted" <tag> &amp;';
    const claims = decodeJwt((await tokensFor(w, w.A, { nonce })).id_token!);
    assert.equal(claims.nonce, nonce);
  });

  test('7.88 nonce is absent when none was sent', async () => {
    const claims = decodeJwt((await tokensFor(w, w.A, { nonce: undefined })).id_token!);
    assert.equal('nonce' in claims, false);
  });

  test('7.89 sub present, ≤ 255 ASCII chars, stable across logins and clients of this issuer, equal to userinfo sub', async () => {
    const one = await tokensFor(w, w.A);
    const two = await tokensFor(w, w.B);
    const [c1, c2] = [decodeJwt(one.id_token!), decodeJwt(two.id_token!)];
    assert.match(String(c1.sub), /^[\x21-\x7E]{1,255}$/);
    assert.equal(c1.sub, c2.sub);
    const info = (await (await bearer(w, '/userinfo', one.access_token)).json()) as { sub: string };
    assert.equal(info.sub, c1.sub);
    const other = decodeJwt((await tokensFor(w, w.A, {}, w.U2)).id_token!);
    assert.notEqual(other.sub, c1.sub);
  });

  test('7.91 JWS header: RS256 by default, advertised, kid resolvable in jwks_uri, signature verifies; never none', async () => {
    const t = await tokensFor(w, w.A);
    const header = decodeProtectedHeader(t.id_token!);
    assert.equal(header.alg, 'RS256');
    assert.ok(header.kid);
    const discovery = (await (await fetch(`${w.url}/.well-known/openid-configuration`)).json()) as {
      jwks_uri: string;
      id_token_signing_alg_values_supported: string[];
    };
    assert.ok(discovery.id_token_signing_alg_values_supported.includes('RS256'));
    assert.ok(!discovery.id_token_signing_alg_values_supported.includes('none'));
    const jwks = (await (await fetch(discovery.jwks_uri)).json()) as { keys: Array<{ kid: string }> };
    assert.ok(jwks.keys.some((k) => k.kid === header.kid));
    const { payload } = await jwtVerify(t.id_token!, createRemoteJWKSet(new URL(discovery.jwks_uri)), {
      issuer: w.url,
      audience: w.A.id,
      algorithms: ['RS256'],
    });
    assert.ok(payload.exp! > payload.iat!);
  });

  test('7.92 at_hash, if present, equals base64url(left half of SHA-256(access_token))', async () => {
    const t = await tokensFor(w, w.A);
    const claims = decodeJwt(t.id_token!);
    // Optional in the code flow; Gatehouse sends it, so it must be right.
    const digest = createHash('sha256').update(t.access_token).digest();
    assert.equal(claims.at_hash, digest.subarray(0, 16).toString('base64url'));
  });

  test('7.94 scope=openid alone → neither id_token nor userinfo has email, phone, address or profile claims', async () => {
    const t = await tokensFor(w, w.A, { scope: 'openid' });
    const claims = decodeJwt(t.id_token!);
    const info = (await (await bearer(w, '/userinfo', t.access_token)).json()) as Record<string, unknown>;
    for (const name of [...PROFILE_CLAIMS, ...OTHER_CLAIMS]) {
      assert.equal(name in claims, false, `id_token has ${name}`);
      assert.equal(name in info, false, `userinfo has ${name}`);
    }
  });

  test('7.x a second code flow after a nonce is bound does not leak the previous nonce', async () => {
    const p = pkcePair();
    const browser = new Browser(w.url);
    await loginAndConsent(browser, authorizeUrl(w.A.id, { nonce: 'first' }, p.challenge), w.U1);
    const a = await authorize(w, w.A, { nonce: undefined }, { browser });
    const r = await exchange(w, w.A, a);
    assert.equal(decodeJwt(String(r.body.id_token)).nonce, undefined);
  });

  test('7.x the id_token carries exp, iat, auth_time, and exp is within the configured lifetime', async () => {
    const claims = decodeJwt((await tokensFor(w, w.A)).id_token!);
    assert.ok(typeof claims.auth_time === 'number');
    assert.ok(claims.exp! - claims.iat! <= w.t.config.ID_TOKEN_TTL);
  });
});
