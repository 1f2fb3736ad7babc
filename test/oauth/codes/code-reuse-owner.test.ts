// A redeemed code replayed by another client changes nothing (RFC 6749 4.1.2 revocation is for the code's
// own client): only that client — authenticated, or a public client with the right code_verifier —
// triggers the revocation of the grant; anyone else gets invalid_grant and the owner's tokens live on.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { authorizationCodes } from '../../../src/oauth/codes/index.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient, postToken, REDIRECT_URI, refreshWith, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { pkcePair } from '../../helpers/pkce.js';
import { createUser } from '../../helpers/users.js';

let t: TestApp;
let user: User;
before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  user = await createUser(t.core.db, t.core.clock);
});
after(() => t.close());

/** A code of `owner`, redeemed once by it: the code, its verifier and the tokens of the first redemption. */
async function redeemedCode(owner: ClientFixture) {
  const { verifier, challenge } = pkcePair();
  const code = await authorizationCodes(t.core).issue({
    clientId: owner.client.id,
    redirectUri: REDIRECT_URI,
    codeChallenge: challenge,
    scope: ['openid', 'offline_access', 'users:read'],
    userId: user.id,
    authTime: Math.floor(t.core.clock.now() / 1000),
  });
  const first = await postToken(t.url, owner, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
  assert.equal(first.status, 200);
  return { code, verifier, tokens: first.body };
}

const replay = (by: ClientFixture, code: string, verifier: string) =>
  postToken(t.url, by, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });

const me = (token: unknown) => fetch(`${t.url}/v1/users/me`, { headers: { authorization: `Bearer ${String(token)}` } });

async function assertOwnerTokensLive(owner: ClientFixture, tokens: Record<string, unknown>): Promise<void> {
  assert.equal((await me(tokens.access_token)).status, 200, "the owner's access token still works");
  assert.equal((await refreshWith(t.url, owner, String(tokens.refresh_token))).status, 200, "the owner's refresh token still works");
}

test('a redeemed code replayed by another public client is invalid_grant and revokes nothing', async () => {
  const owner = await createClient(t.core.db, t.core.clock);
  const stranger = await createClient(t.core.db, t.core.clock);
  const { code, verifier, tokens } = await redeemedCode(owner);
  const res = await replay(stranger, code, verifier);
  assert.equal(res.status, 400);
  assert.equal(res.body.error, 'invalid_grant');
  await assertOwnerTokensLive(owner, tokens);
});

test('a redeemed code replayed by another authenticated confidential client is invalid_grant and revokes nothing', async () => {
  const owner = await createClient(t.core.db, t.core.clock, { type: 'confidential' });
  const stranger = await createClient(t.core.db, t.core.clock, { type: 'confidential' });
  const { code, verifier, tokens } = await redeemedCode(owner);
  assert.equal((await replay(stranger, code, verifier)).body.error, 'invalid_grant');
  await assertOwnerTokensLive(owner, tokens);
});

test("a public client's redeemed code replayed under its client_id without the right code_verifier revokes nothing", async () => {
  const owner = await createClient(t.core.db, t.core.clock);
  const { code, tokens } = await redeemedCode(owner);
  assert.equal((await replay(owner, code, pkcePair().verifier)).body.error, 'invalid_grant');
  await assertOwnerTokensLive(owner, tokens);
});

test("the code's own client replaying it (public with the right verifier, or authenticated) revokes the grant", async () => {
  for (const type of ['public', 'confidential'] as const) {
    const owner = await createClient(t.core.db, t.core.clock, { type });
    const { code, verifier, tokens } = await redeemedCode(owner);
    assert.equal((await replay(owner, code, verifier)).body.error, 'invalid_grant');
    assert.equal((await me(tokens.access_token)).status, 401, type);
    assert.equal((await refreshWith(t.url, owner, String(tokens.refresh_token))).body.error, 'invalid_grant', type);
  }
});
