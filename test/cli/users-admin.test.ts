// `gatehouse users grant-admin USER [--read-only]` / `users revoke-admin USER`: CLI only, audited (actor: the
// CLI's OS user), usage errors for unknown users; the admin API has no way to make an operator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { operatorRolesRepository } from '../../src/storage/repositories/operator-roles-repository.js';
import { adminFixture, type AdminFixture } from '../admin/fixture.js';
import { SIGN_IN, createUser } from '../helpers/users.js';

let f: AdminFixture;
before(async () => {
  f = await adminFixture();
});
after(() => f.t.close());

test('grant-admin and revoke-admin are audited with the CLI as actor, naming the scopes and never anything else', async () => {
  const user = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
  const granted = await executeCommand(['users', 'grant-admin', user.username], f.t.core);
  assert.deepEqual(granted, { id: user.id, username: user.username, operator: true, scopes: ['admin:read', 'admin:write'], console_grants_revoked: 0 });
  const readOnly = await executeCommand(['users', 'grant-admin', user.id, '--read-only'], f.t.core);
  assert.deepEqual((readOnly as { scopes: string[] }).scopes, ['admin:read']);
  const revoked = await executeCommand(['users', 'revoke-admin', user.username], f.t.core);
  assert.deepEqual(revoked, { id: user.id, username: user.username, operator: false, scopes: [], console_grants_revoked: 0 });
  const events = (await f.t.core.db.selectFrom('audit_events').selectAll().where('subject', '=', user.id).orderBy('occurred_at').execute()).map((e) => [
    e.type,
    e.actor_kind,
  ]);
  assert.deepEqual(events, [
    ['admin.user.operator_granted', 'cli'],
    ['admin.user.operator_granted', 'cli'],
    ['admin.user.operator_revoked', 'cli'],
  ]);
});

test('grant-admin refuses an unknown user and extra arguments as usage errors', async () => {
  await assert.rejects(executeCommand(['users', 'grant-admin', 'nobody-here'], f.t.core), UsageError);
  await assert.rejects(executeCommand(['users', 'grant-admin'], f.t.core), UsageError);
  await assert.rejects(executeCommand(['users', 'revoke-admin', 'a', 'b'], f.t.core), UsageError);
});

test('the admin API cannot make an operator: a user write that names operator fields is refused and changes nothing', async () => {
  const user = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
  const read = await f.api(`/admin/v1/users/${user.id}`);
  const patched = await f.api(`/admin/v1/users/${user.id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json', 'if-match': read.headers.get('etag')! },
    body: JSON.stringify({ operator: true, scopes: 'admin:write' }),
  });
  assert.ok(patched.status === 400 || patched.status === 422, `refused (${patched.status})`);
  assert.equal(await operatorRolesRepository(f.t.core.db).find(user.id), undefined);
});
