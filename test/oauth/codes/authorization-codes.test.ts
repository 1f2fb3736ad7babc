import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import { authorizationCodes } from '../../../src/oauth/codes/index.js';
import { sha256 } from '../../../src/crypto/random.js';
import type { Database } from '../../../src/storage/driver/database.js';
import { createStore } from '../../../src/storage/store.js';
import { createTestDatabase } from '../../helpers/database.js';
import { createClient, REDIRECT_URI } from '../../helpers/oauth-fixtures.js';
import { pkcePair } from '../../helpers/pkce.js';
import { createUser } from '../../helpers/users.js';

const clock = manualClock();
const config = { AUTH_CODE_TTL: 60, REFRESH_TOKEN_ABSOLUTE_TTL: 2_592_000, REFRESH_TOKEN_IDLE_TTL: 1_209_600 };
let database: Database;

before(async () => {
  database = await createTestDatabase();
});
after(async () => {
  await database.close();
});

async function mint(overrides: { clientId?: string } = {}) {
  const { client } = await createClient(database.db, clock);
  const user = await createUser(database.db, clock);
  const codes = authorizationCodes({ store: createStore(database.db, clock), clock, config });
  const code = await codes.issue({
    clientId: overrides.clientId ?? client.id,
    redirectUri: REDIRECT_URI,
    codeChallenge: pkcePair().challenge,
    scope: ['openid'],
    nonce: 'n-0S6_WzA2Mj',
    userId: user.id,
    authTime: Math.floor(clock.now() / 1000),
  });
  return { codes, code, client, user };
}

describe('authorization codes', () => {
  test('codes carry at least 128 random bits and are stored only as their SHA-256', async () => {
    const { code } = await mint();
    assert.ok(Buffer.from(code, 'base64url').length >= 16);
    const rows = await database.db.selectFrom('authorization_codes').select('code_hash').execute();
    assert.ok(rows.some((r) => r.code_hash === sha256(code)));
    assert.ok(rows.every((r) => r.code_hash !== code));
  });

  test('1,000 issued codes are all distinct', async () => {
    const { codes, client, user } = await mint();
    const issued: string[] = [];
    // In batches of 20, within the PostgreSQL pool's size.
    for (let batch = 0; batch < 50; batch++) {
      issued.push(
        ...(await Promise.all(
          Array.from({ length: 20 }, () =>
            codes.issue({ clientId: client.id, redirectUri: REDIRECT_URI, codeChallenge: pkcePair().challenge, scope: [], userId: user.id, authTime: 0 }),
          ),
        )),
      );
    }
    assert.equal(new Set(issued).size, 1000);
  });

  test('a code is redeemed once and carries what was bound at /authorize', async () => {
    const { codes, code, client, user } = await mint();
    const first = await codes.redeem(code, client.id);
    assert.ok(first.ok);
    assert.equal(first.code.userId, user.id);
    assert.equal(first.code.redirectUri, REDIRECT_URI);
    assert.equal(first.code.nonce, 'n-0S6_WzA2Mj');
    const second = await codes.redeem(code, client.id);
    assert.deepEqual(second, { ok: false, reason: 'reused', grantId: first.code.grantId });
  });

  test('code reuse revokes the access token recorded by the first redemption, even before it was signed (a racing duplicate)', async () => {
    const { codes, code, client } = await mint();
    const accessToken = { jti: `jti-${sha256(code).slice(0, 12)}`, expiresAt: new Date(clock.now() + 600_000) };
    const first = await codes.redeem(code, client.id, { accessToken });
    assert.ok(first.ok);
    assert.equal(await database.db.selectFrom('revoked_access_tokens').select('jti').where('jti', '=', accessToken.jti).executeTakeFirst(), undefined);
    // The duplicate arrives while the winner is still signing: its jti is already recorded under the grant.
    assert.equal((await codes.redeem(code, client.id)).ok, false);
    const revoked = await database.db.selectFrom('revoked_access_tokens').select('jti').where('jti', '=', accessToken.jti).executeTakeFirst();
    assert.equal(revoked?.jti, accessToken.jti);
  });

  test('code bound to client: another client cannot redeem it and does not consume it', async () => {
    const { codes, code, client } = await mint();
    const { client: other } = await createClient(database.db, clock);
    assert.deepEqual(await codes.redeem(code, other.id), { ok: false, reason: 'other_client' });
    assert.ok((await codes.redeem(code, client.id)).ok);
  });

  test('code expiry: a code older than AUTH_CODE_TTL is refused', async () => {
    const { codes, code, client } = await mint();
    clock.advance(60_000);
    assert.deepEqual(await codes.redeem(code, client.id), { ok: false, reason: 'expired' });
  });

  test('parallel redemption: 10 at once give exactly one success', async () => {
    const { codes, code, client } = await mint();
    const results = await Promise.all(Array.from({ length: 10 }, () => codes.redeem(code, client.id)));
    assert.equal(results.filter((r) => r.ok).length, 1);
    assert.equal(results.filter((r) => !r.ok && r.reason === 'reused').length, 9);
  });

  test('an unknown or altered code is refused', async () => {
    const { codes, code, client } = await mint();
    assert.deepEqual(await codes.redeem(`${code}x`, client.id), { ok: false, reason: 'unknown' });
  });
});
