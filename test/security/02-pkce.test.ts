// Security suite, area 2: PKCE (RFC 7636; RFC 9700 §2.1.1; S256 only, for every client type).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertErrorRedirect } from '../oauth/authorize/assertions.js';
import { authorize, authorizeUrl, assertTokenError, exchange, REG, startWorld, token, type World } from './helpers/world.js';

let w: World;
before(async () => {
  w = await startWorld();
});
after(() => w.close());

const get = (path: string) => fetch(w.url + path, { redirect: 'manual' });

describe('2. PKCE', () => {
  test('2.37 well-formed but wrong code_verifier → invalid_grant', async () => {
    const a = await authorize(w, w.A);
    assertTokenError(await exchange(w, w.A, { ...a, verifier: 'W'.repeat(43) }), 'invalid_grant');
  });

  test('2.37+ after a wrong verifier the code is burnt: the right verifier then fails too', async () => {
    const a = await authorize(w, w.A);
    await exchange(w, w.A, { ...a, verifier: 'W'.repeat(43) });
    const second = await exchange(w, w.A, a);
    assert.notEqual(second.status, 200, 'a code must not survive a failed PKCE check (verifier guessing)');
  });

  test('2.38 code_challenge at authorize, no code_verifier at token → invalid_grant', async () => {
    const a = await authorize(w, w.A);
    assertTokenError(await token(w, w.A, { grant_type: 'authorization_code', code: a.code, redirect_uri: REG }), ['invalid_grant', 'invalid_request']);
  });

  test('2.40 public client P without code_challenge → redirect error=invalid_request', async () => {
    const response = await get(authorizeUrl(w.P.id, { code_challenge: undefined, code_challenge_method: undefined, state: 'p' }));
    assertErrorRedirect(response, { error: 'invalid_request', redirectUri: REG, state: 'p', issuer: w.url });
  });

  test('2.40+ confidential client A without code_challenge → redirect error=invalid_request (PKCE for every client)', async () => {
    const response = await get(authorizeUrl(w.A.id, { code_challenge: undefined, code_challenge_method: undefined, state: 'a' }));
    assertErrorRedirect(response, { error: 'invalid_request', redirectUri: REG, state: 'a', issuer: w.url });
  });

  test('2.41 code_challenge_method=plain → redirect error=invalid_request', async () => {
    const response = await get(authorizeUrl(w.P.id, { code_challenge_method: 'plain', state: 'p' }));
    assertErrorRedirect(response, { error: 'invalid_request', redirectUri: REG, state: 'p', issuer: w.url });
  });

  test('2.41+ code_challenge_method omitted (would default to plain) → redirect error=invalid_request', async () => {
    const response = await get(authorizeUrl(w.P.id, { code_challenge_method: undefined, state: 'p' }));
    assertErrorRedirect(response, { error: 'invalid_request', redirectUri: REG, state: 'p', issuer: w.url });
  });

  const badChallenges: Record<string, Record<string, string>> = {
    'method S512': { code_challenge_method: 'S512' },
    'method s256 (lower case)': { code_challenge_method: 's256' },
    'challenge with +': { code_challenge: `${'a'.repeat(42)}+` },
    'challenge with /': { code_challenge: `${'a'.repeat(42)}/` },
    'challenge with =': { code_challenge: `${'a'.repeat(42)}=` },
    'challenge of 42 chars': { code_challenge: 'a'.repeat(42) },
    'challenge of 44 chars': { code_challenge: 'a'.repeat(44) },
    'empty challenge': { code_challenge: '' },
  };
  for (const [name, params] of Object.entries(badChallenges)) {
    test(`2.43 ${name} → redirect error=invalid_request`, async () => {
      const response = await get(authorizeUrl(w.P.id, { state: 'c', ...params }));
      assertErrorRedirect(response, { error: 'invalid_request', redirectUri: REG, state: 'c', issuer: w.url });
    });
  }

  test('2.43+ code_challenge repeated → invalid_request', async () => {
    const response = await get(`${authorizeUrl(w.P.id, { state: 'c' })}&code_challenge=${'b'.repeat(43)}`);
    assert.ok(response.status === 400 || new URL(response.headers.get('location')!).searchParams.get('error') === 'invalid_request');
  });

  for (const [name, verifier] of Object.entries({
    '42 chars': 'a'.repeat(42),
    '129 chars': 'a'.repeat(129),
    'a +': `${'a'.repeat(42)}+`,
    'an =': `${'a'.repeat(42)}=`,
    'a space': `${'a'.repeat(42)} `,
    'non-ASCII': `${'a'.repeat(42)}é`,
  })) {
    test(`2.44 code_verifier with ${name} → 400 invalid_grant or invalid_request, never 200`, async () => {
      const a = await authorize(w, w.P);
      assertTokenError(await exchange(w, w.P, { ...a, verifier }), ['invalid_grant', 'invalid_request']);
    });
  }

  test('2.44+ the correct verifier of a public client still works (the family is not just "always refuse")', async () => {
    const a = await authorize(w, w.P);
    assert.equal((await exchange(w, w.P, a)).status, 200);
  });
});
