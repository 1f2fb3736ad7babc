// Security suite, area 5: client authentication at /token (RFC 6749 §2.3, §5.2; RFC 7617; RFC 7523 §3; RFC 8725 §3.1).
// The private_key_jwt claim-by-claim family lives in test/oauth/client-auth/private-key-jwt.test.ts; here the
// attacker's view of the security suite's fixtures (A basic, B post, C with `: + % / = space` in its secret).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as client from 'openid-client';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { basicAuth, postForm, registerClient } from '../oauth/fixtures.js';
import { authorize, assertTokenError, REG, startWorld, token, type World } from './helpers/world.js';

let w: World;
before(async () => {
  w = await startWorld();
});
after(() => w.close());

const tokenPost = (params: Record<string, string> | string, headers: Record<string, string> = {}) => postForm(`${w.url}/token`, params, headers);
const cc = { grant_type: 'client_credentials', scope: 'users:read' };

describe('5. client authentication', () => {
  test('5.C openid-client authenticates C (secret with : + % / = space) via client_secret_basic', async () => {
    const config = await client.discovery(new URL(w.url), w.C.id, undefined, client.ClientSecretBasic(w.C.secret), { execute: [client.allowInsecureRequests] });
    const tokens = await client.clientCredentialsGrant(config, { scope: 'users:read' });
    assert.ok(tokens.access_token);
  });

  test('5.64 Basic with the wrong secret → 401 invalid_client with WWW-Authenticate: Basic realm="…"', async () => {
    const r = await tokenPost(cc, { authorization: basicAuth(w.C.id, `${w.C.secret}x`) });
    assertTokenError(r, 'invalid_client', 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Basic realm="[^"]+"/);
  });

  test('5.64+ the raw (not form-encoded) secret of C in Basic is refused: RFC 6749 §2.3.1 encoding is enforced both ways', async () => {
    const raw = `Basic ${Buffer.from(`${w.C.id}:${w.C.secret.replace(/%/g, '%25').replace(/\+/g, 'PLUS')}`).toString('base64')}`;
    assertTokenError(await tokenPost(cc, { authorization: raw }), 'invalid_client', 401);
  });

  test('5.65 Basic naming an unknown client_id → 401 invalid_client, same status, headers and body as a wrong secret', async () => {
    const unknown = await tokenPost(cc, { authorization: basicAuth(`ghost-${randomUUID()}`, w.C.secret) });
    const wrong = await tokenPost(cc, { authorization: basicAuth(w.C.id, 'not-the-secret') });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.text, wrong.text);
    assert.equal(unknown.headers.get('www-authenticate'), wrong.headers.get('www-authenticate'));
  });

  test('5.65 a deleted client → 401 invalid_client, identical to an unknown one', async () => {
    const gone = await registerClient(w.t.core, { client_name: 'to delete' });
    const { clientsRepository } = await import('../../src/storage/repositories/clients-repository.js');
    await clientsRepository(w.t.core.db, w.t.core.clock).delete(gone.id);
    const r = await tokenPost(cc, { authorization: basicAuth(gone.id, gone.secret) });
    assertTokenError(r, 'invalid_client', 401);
    const unknown = await tokenPost(cc, { authorization: basicAuth(`ghost-${randomUUID()}`, gone.secret) });
    assert.equal(r.text, unknown.text);
  });

  test('5.65 timing: unknown client and wrong secret take comparable time (median difference < 30 ms)', async () => {
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const time = async (auth: string) => {
      const start = performance.now();
      await tokenPost(cc, { authorization: auth });
      return performance.now() - start;
    };
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 15; i++) {
      unknown.push(await time(basicAuth(`ghost-${i}`, 'x'.repeat(43))));
      wrong.push(await time(basicAuth(w.C.id, 'x'.repeat(43))));
    }
    assert.ok(Math.abs(median(unknown) - median(wrong)) < 30, `${median(unknown)} vs ${median(wrong)}`);
  });

  test('5.67 Basic plus client_secret in the body → 400 invalid_request or 401, never success', async () => {
    const r = await tokenPost({ ...cc, client_secret: w.C.secret }, { authorization: basicAuth(w.C.id, w.C.secret) });
    assertTokenError(r, ['invalid_request', 'invalid_client']);
  });

  test('5.67+ client_secret_post and a client_assertion together → refused', async () => {
    const r = await tokenPost({
      ...cc,
      client_id: w.B.id,
      client_secret: w.B.secret,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: 'a.b.c',
    });
    assertTokenError(r, ['invalid_request', 'invalid_client']);
  });

  test('5.68 Basic credentials for A plus body client_id=B → 400/401, no tokens for either client', async () => {
    const a = await authorize(w, w.A);
    const r = await tokenPost(
      { grant_type: 'authorization_code', code: a.code, redirect_uri: REG, code_verifier: a.verifier, client_id: w.B.id },
      { authorization: basicAuth(w.A.id, w.A.secret) },
    );
    assertTokenError(r, ['invalid_request', 'invalid_client']);
  });

  const malformed: Record<string, string> = {
    'not base64': 'Basic !!!not-base64!!!',
    'no colon': `Basic ${Buffer.from('just-a-client-id').toString('base64')}`,
    'empty username': `Basic ${Buffer.from(':secret').toString('base64')}`,
    'empty value': 'Basic ',
    'two spaces': `Basic  ${Buffer.from('a:b').toString('base64')}`,
    'bad percent-encoding': `Basic ${Buffer.from('%E0%A4%A:%zz').toString('base64')}`,
    'huge value': `Basic ${'A'.repeat(6000)}`,
    'binary junk': `Basic ${Buffer.from([0, 255, 58, 0, 1]).toString('base64')}`,
  };
  for (const [name, header] of Object.entries(malformed)) {
    test(`5.70 Basic value with ${name} → 401 invalid_client, no 5xx`, async () => {
      assertTokenError(await tokenPost(cc, { authorization: header }), 'invalid_client', 401);
    });
  }

  test('5.70+ a client_id containing NUL (in Basic or in the form) → 401 invalid_client, not a database error', async () => {
    assertTokenError(await tokenPost(cc, { authorization: basicAuth('a\u0000b', 'secret') }), 'invalid_client', 401);
    assertTokenError(await tokenPost({ ...cc, client_id: '\u0000' }), 'invalid_client', 401);
    assertTokenError(await tokenPost({ ...cc, client_id: `${w.B.id}\u0000`, client_secret: w.B.secret }), 'invalid_client', 401);
  });

  test('5.71 client_id and client_secret in the URL query of the token POST → never accepted', async () => {
    const response = await fetch(`${w.url}/token?client_id=${encodeURIComponent(w.B.id)}&client_secret=${encodeURIComponent(w.B.secret)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(cc),
    });
    const body = (await response.json()) as { error: string };
    assert.ok(response.status === 400 || response.status === 401);
    assert.ok(['invalid_request', 'invalid_client'].includes(body.error));
  });

  test('5.x B (client_secret_post) using Basic, or A (basic) using post → invalid_client (only the registered method)', async () => {
    const a = await authorize(w, w.A);
    assertTokenError(
      await token(w, w.A, { grant_type: 'authorization_code', code: a.code, redirect_uri: REG, code_verifier: a.verifier }, 'post'),
      'invalid_client',
    );
    const b = await authorize(w, w.B);
    assertTokenError(
      await token(w, w.B, { grant_type: 'authorization_code', code: b.code, redirect_uri: REG, code_verifier: b.verifier }, 'basic'),
      'invalid_client',
    );
  });

  describe('5.73 private_key_jwt assertions', () => {
    let keyClientId: string;
    let key: CryptoKey;
    const now = () => Math.floor(Date.now() / 1000);
    before(async () => {
      const pair = await generateKeyPair('ES256', { extractable: true });
      key = pair.privateKey;
      keyClientId = (
        await registerClient(w.t.core, { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1' }] } })
      ).id;
    });
    const assertion = (overrides: Record<string, unknown> = {}, header: Record<string, unknown> = { alg: 'ES256', kid: 'k1' }) => {
      const claims: Record<string, unknown> = { iss: keyClientId, sub: keyClientId, aud: w.url, iat: now(), exp: now() + 60, jti: randomUUID(), ...overrides };
      for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
      return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key);
    };
    const present = async (jwt: string) =>
      tokenPost({ ...cc, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: jwt });

    test('5.73 a well-formed assertion passes (baseline), and nbf 8 s ahead still passes', async () => {
      assert.equal((await present(await assertion())).status, 200);
      assert.equal((await present(await assertion({ nbf: now() + 8 }))).status, 200);
    });

    const bad: Record<string, Record<string, unknown>> = {
      'aud of another server': { aud: 'https://other.example' },
      'aud as an array': {},
      'exp 5 min in the past': { exp: now() - 300, iat: now() - 360 },
      'nbf > 60 s ahead': { nbf: now() + 120 },
      'sub missing': { sub: undefined },
      'sub not the client_id': { sub: 'someone-else' },
      'iss not the client_id': { iss: 'someone-else' },
      'jti missing': { jti: undefined },
    };
    for (const [name, overrides] of Object.entries(bad)) {
      test(`5.73 assertion with ${name} → 401 invalid_client`, async () => {
        const fixed = name === 'aud as an array' ? { aud: [w.url] } : overrides;
        assertTokenError(await present(await assertion(fixed)), 'invalid_client', 401);
      });
    }

    test('5.73 jti replayed → 401 invalid_client', async () => {
      const jwt = await assertion();
      assert.equal((await present(jwt)).status, 200);
      assertTokenError(await present(jwt), 'invalid_client', 401);
    });

    test('5.73 alg none → 401 invalid_client', async () => {
      const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const jwt = `${b64({ alg: 'none' })}.${b64({ iss: keyClientId, sub: keyClientId, aud: w.url, exp: now() + 60, jti: randomUUID() })}.`;
      assertTokenError(await present(jwt), 'invalid_client', 401);
    });

    test('5.73 signed by an unregistered key → 401 invalid_client', async () => {
      const other = await generateKeyPair('ES256');
      const jwt = await new SignJWT({ iss: keyClientId, sub: keyClientId, aud: w.url, iat: now(), exp: now() + 60, jti: randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .sign(other.privateKey);
      assertTokenError(await present(jwt), 'invalid_client', 401);
    });
  });
});
