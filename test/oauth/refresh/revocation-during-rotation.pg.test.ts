// A grant revoked while a refresh is rotating must not hand out a live access token: the rotation
// statement share-locks the grant row when it records the new jti, so it waits for the revocation and sees it.
// PostgreSQL server only: the revocation holds its row lock in a second connection while the refresh runs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { sha256 } from '../../../src/crypto/random.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { codeGrantTokens, createClient, refreshWith } from '../../helpers/oauth-fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { createUser } from '../../helpers/users.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
});
after(() => t.close());

/** Resolves once some backend of this database waits for a row lock. */
async function someoneWaitsForALock(stop: { settled: boolean }): Promise<boolean> {
  while (!stop.settled) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(t.core.db);
    if (rows[0]!.n > 0) return true;
  }
  return false;
}

test('a refresh racing the revocation of its grant waits for it and answers invalid_grant, issuing no token', async () => {
  const fixture = await createClient(t.core.db, t.core.clock, { type: 'confidential' });
  const user = await createUser(t.core.db, t.core.clock);
  const tokens = await codeGrantTokens(t, fixture, user, ['openid', 'offline_access']);
  const refreshToken = tokens.refresh_token as string;
  const { grant_id: grantId } = await t.core.db
    .selectFrom('refresh_tokens')
    .select('grant_id')
    .where('token_hash', '=', sha256(refreshToken))
    .executeTakeFirstOrThrow();
  const jtisBefore = await t.core.db.selectFrom('grant_access_tokens').select('jti').where('grant_id', '=', grantId).execute();

  let commit!: () => void;
  const held = new Promise<void>((resolve) => (commit = resolve));
  let marked!: () => void;
  const revoking = new Promise<void>((resolve) => (marked = resolve));
  const revocation = t.core.db.transaction().execute(async (trx) => {
    await trx.updateTable('oauth_grants').set({ revoked_at: new Date() }).where('id', '=', grantId).execute();
    marked();
    await held;
  });
  await revoking;

  const progress = { settled: false };
  const refresh = refreshWith(t.url, fixture, refreshToken).finally(() => (progress.settled = true));
  try {
    assert.ok(await someoneWaitsForALock(progress), 'the rotation waited for the revocation holding the grant row');
  } finally {
    commit();
    await revocation;
  }

  const response = await refresh;
  assert.equal(response.status, 400);
  assert.equal(response.body.error, 'invalid_grant');
  assert.equal(response.body.access_token, undefined);
  const jtisAfter = await t.core.db.selectFrom('grant_access_tokens').select('jti').where('grant_id', '=', grantId).execute();
  assert.deepEqual(jtisAfter, jtisBefore, 'no access token was recorded under the revoked grant');
});
