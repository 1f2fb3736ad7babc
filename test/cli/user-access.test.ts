// `gatehouse grants|sessions|consents`: the operator's view of a user's access from the command line, through
// the admin API's rules (src/admin-services/user-access-service.ts): the same views as /admin/v1, ends that
// take effect at once, and audit events with the CLI as the actor.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { UsageError } from '../../src/cli/command.js';
import { consentsRepository } from '../../src/storage/repositories/consents-repository.js';
import { refreshWith } from '../helpers/oauth-fixtures.js';
import { adminFixture, type AdminFixture } from '../admin/fixture.js';
import { userWithGrant } from '../admin/user-access-fixture.js';

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => {
  f = await adminFixture({ clock });
});
after(() => f.t.close());

const auditedByCli = async (type: string, resourceId: string) =>
  (await f.t.core.db.selectFrom('audit_events').select(['actor_kind']).where('type', '=', type).where('resource_id', '=', resourceId).execute()).map(
    (e) => e.actor_kind,
  );

test('grants list shows what GET /admin/v1/grants shows; grants revoke ends the refresh token at once and is audited as the CLI', async () => {
  const g = await userWithGrant(f);
  const byUsername = (await f.cli('grants', 'list', '--user', g.user.username)) as { grants: { id: string }[] };
  const byClient = (await f.cli('grants', 'list', '--client', g.client.client.id)) as { grants: { id: string }[] };
  const api = (await (await f.api(`/admin/v1/grants?user_id=${g.user.id}`)).json()) as { data: unknown[] };
  assert.deepEqual(byUsername.grants, api.data, 'the same view as the admin API');
  assert.deepEqual(byClient.grants, api.data);
  assert.equal(byUsername.grants.length, 1);

  const id = byUsername.grants[0]!.id;
  assert.deepEqual(await f.cli('grants', 'revoke', id), { revoked: id });
  assert.equal((await refreshWith(f.t.url, g.client, g.refreshToken)).body.error, 'invalid_grant');
  assert.deepEqual(await auditedByCli('admin.grant.revoked', id), ['cli']);
  assert.deepEqual(await f.cli('grants', 'list', '--user', g.user.id), { grants: [] });
  await assert.rejects(f.cli('grants', 'revoke', id), UsageError, 'a revoked grant is gone');
});

test('sessions list and sessions end: the session is gone and its end is audited as the CLI', async () => {
  const g = await userWithGrant(f);
  const now = new Date(clock.now());
  await f.t.core.db
    .insertInto('browser_sessions')
    .values({
      id_hash: `cli-${g.user.id}`,
      sid: `cli-${g.user.id}`,
      user_id: g.user.id,
      auth_time: now,
      csrf_token: 'x',
      created_at: now,
      expires_at: new Date(clock.now() + 3_600_000),
    })
    .execute();
  const listed = (await f.cli('sessions', 'list', '--user', g.user.id)) as { sessions: { id: string; user_id: string }[] };
  assert.deepEqual(
    listed.sessions.map((s) => [s.id, s.user_id]),
    [[`cli-${g.user.id}`, g.user.id]],
  );
  assert.deepEqual(await f.cli('sessions', 'end', `cli-${g.user.id}`), { ended: `cli-${g.user.id}` });
  assert.deepEqual(await f.cli('sessions', 'list', '--user', g.user.id), { sessions: [] });
  assert.deepEqual(await auditedByCli('admin.session.ended', `cli-${g.user.id}`), ['cli']);
});

test('consents revoke also ends that user’s grants at that client (the account page’s rule)', async () => {
  const g = await userWithGrant(f);
  await consentsRepository(f.t.core.db, f.t.core.clock).grant(g.user.id, g.client.client.id, ['openid', 'orders:read']);
  const { consents } = (await f.cli('consents', 'list', '--client', g.client.client.id)) as { consents: { id: string; scope: string }[] };
  assert.equal(consents.length, 1);
  assert.equal(consents[0]!.scope, 'openid orders:read');
  await f.cli('consents', 'revoke', consents[0]!.id);
  assert.equal((await refreshWith(f.t.url, g.client, g.refreshToken)).body.error, 'invalid_grant');
  assert.deepEqual(await f.cli('consents', 'list', '--user', g.user.id), { consents: [] });
  assert.deepEqual(await auditedByCli('consent.revoked', consents[0]!.id), ['cli']);
});

test('a list needs an owner, an unknown user is named, and unknown ids are usage errors (exit 2), never a crash', async () => {
  await assert.rejects(f.cli('grants', 'list'), /usage: gatehouse grants list/);
  await assert.rejects(f.cli('sessions', 'list', '--client', 'x'), UsageError, 'sessions are listed by user only');
  await assert.rejects(f.cli('consents', 'list', '--user', 'nobody-here'), /no user nobody-here/);
  await assert.rejects(f.cli('grants', 'revoke', 'no-such-grant'), UsageError);
  await assert.rejects(f.cli('sessions', 'end', 'no-such-session'), UsageError);
  await assert.rejects(f.cli('consents', 'revoke', 'no-such-consent'), UsageError);
  await assert.rejects(f.cli('grants', 'revoke'), /usage: gatehouse grants revoke/);
});
