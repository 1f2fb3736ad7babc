// `gatehouse users identities USER` and `users unlink USER PROVIDER`: the admin API's view of a user's links to
// upstream providers, and removing one through the same rule — audited with the CLI as the actor, never the
// user's last way to sign in (user-rules/unlink-provider.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../src/cli/command.js';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { adminFixture, type AdminFixture } from '../admin/fixture.js';
import { linkedUser, storedIdentityProvider } from '../helpers/identity-providers.js';

let f: AdminFixture;
let a: IdentityProvider;
let b: IdentityProvider;
before(async () => {
  f = await adminFixture();
  a = await storedIdentityProvider(f.t.core.db, 'cli-a', { name: 'Provider A' });
  b = await storedIdentityProvider(f.t.core.db, 'cli-b', { name: 'Provider B' });
});
after(() => f.t.close());

const refusal = async (work: Promise<unknown>): Promise<string> => {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error.message;
  }
  assert.fail('the command was expected to refuse');
};

test('users identities lists the links as the admin API shows them (by username or id)', async () => {
  const user = await linkedUser(f.t, { password: true, providers: [a, b] });
  const byName = (await f.cli('users', 'identities', user.username)) as { identities: Record<string, unknown>[] };
  const api = (await (await f.api(`/admin/v1/users/${user.id}/identities`, { token: f.readToken })).json()) as { data: Record<string, unknown>[] };
  assert.deepEqual(byName.identities, api.data);
  assert.deepEqual(
    byName.identities.map((i) => (i.provider as { slug: string }).slug),
    ['cli-a', 'cli-b'],
  );
  assert.deepEqual(await f.cli('users', 'identities', user.id), byName);
  assert.match(await refusal(f.cli('users', 'identities', 'nobody-by-that-name')), /nobody-by-that-name/);
  assert.match(await refusal(f.cli('users', 'identities')), /usage/);
});

test('users unlink removes one link by slug or id, audited with the CLI as the actor', async () => {
  const user = await linkedUser(f.t, { password: true, providers: [a, b] });
  assert.deepEqual(await f.cli('users', 'unlink', user.username, 'cli-a'), { unlinked: 'cli-a', user_id: user.id });
  assert.deepEqual(await f.cli('users', 'unlink', user.id, b.id), { unlinked: 'cli-b', user_id: user.id });
  assert.deepEqual(((await f.cli('users', 'identities', user.id)) as { identities: unknown[] }).identities, []);
  assert.match(await refusal(f.cli('users', 'unlink', user.id, 'cli-a')), /no link/);
  const events = await f.t.core.db
    .selectFrom('audit_events')
    .select(['actor_kind', 'details'])
    .where('type', '=', 'admin.user.identity_unlinked')
    .where('subject', '=', user.id)
    .execute();
  assert.deepEqual(events.map((e) => (e.details as { provider: string }).provider).sort(), ['cli-a', 'cli-b']);
  assert.ok(
    events.every((e) => e.actor_kind === 'cli'),
    JSON.stringify(events),
  );
});

test('users unlink never removes the last way to sign in: a password-less user keeps their only link', async () => {
  const user = await linkedUser(f.t, { password: false, providers: [a] });
  assert.match(await refusal(f.cli('users', 'unlink', user.id, 'cli-a')), /last way to sign in/);
  assert.equal(((await f.cli('users', 'identities', user.id)) as { identities: unknown[] }).identities.length, 1);
});
