// REFRESH_REUSE_GRACE (off by default): a client that lost the rotation response may present the same old
// token again within the window and receives the same new pair; outside the window, reuse revokes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { codeGrantTokens, createClient, refreshWith } from '../../helpers/oauth-fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { createUser } from '../../helpers/users.js';

const clock = manualClock();
let t: TestApp;

before(async () => {
  t = await startTestApp({ clock, env: { ...NO_LIMITS, REFRESH_REUSE_GRACE: '10' } });
});
after(async () => {
  await t.close();
});

async function family() {
  const fixture = await createClient(t.core.db, clock);
  const tokens = await codeGrantTokens(t, fixture, await createUser(t.core.db, clock), ['openid', 'offline_access']);
  return { fixture, refreshToken: tokens.refresh_token as string };
}

describe('refresh reuse grace window', () => {
  test('reuse grace: the same old token within the window returns the same new pair and keeps the family', async () => {
    const f = await family();
    const first = await refreshWith(t.url, f.fixture, f.refreshToken);
    assert.equal(first.status, 200);
    clock.advance(5_000);
    const again = await refreshWith(t.url, f.fixture, f.refreshToken);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    assert.equal((await refreshWith(t.url, f.fixture, first.body.refresh_token as string)).status, 200, 'the family lives on');
  });

  test('reuse grace: after the window, reuse revokes the family as usual', async () => {
    const f = await family();
    const first = await refreshWith(t.url, f.fixture, f.refreshToken);
    clock.advance(11_000);
    assert.equal((await refreshWith(t.url, f.fixture, f.refreshToken)).body.error, 'invalid_grant');
    assert.equal((await refreshWith(t.url, f.fixture, first.body.refresh_token as string)).body.error, 'invalid_grant');
  });

  test('reuse grace: another client presenting the old token gets invalid_grant and no pair', async () => {
    const f = await family();
    await refreshWith(t.url, f.fixture, f.refreshToken);
    const other = await createClient(t.core.db, clock);
    const attempt = await refreshWith(t.url, other, f.refreshToken);
    assert.equal(attempt.body.error, 'invalid_grant');
    assert.equal(attempt.body.access_token, undefined);
  });

  test('reuse grace: the stored successor is sealed, never the plain tokens', async () => {
    const f = await family();
    const first = await refreshWith(t.url, f.fixture, f.refreshToken);
    const rows = await t.core.db.selectFrom('refresh_tokens').select('sealed_successor').where('sealed_successor', 'is not', null).execute();
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.ok(!row.sealed_successor!.includes(first.body.refresh_token as string));
      assert.ok(!row.sealed_successor!.includes(first.body.access_token as string));
    }
  });
});
