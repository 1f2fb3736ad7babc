// /admin/v1/users shows every second factor, passkeys included, and the user's ETag moves with every change to
// them (docs/security/admin-api-second-factors.md). The factors are changed through the services /account and
// the sign-in use, never through the admin API, since that is how they change in production.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { passkeysRepository } from '../../src/storage/repositories/passkeys-repository.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import { enrollTotp, factorsOf } from '../interaction/mfa/enroll.js';
import type { AdminFixture } from './fixture.js';
import { startUsersFixture, usersApi } from './users-fixture.js';

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => ({ f } = await startUsersFixture(clock)));
after(() => f.t.close());
const { create, read } = usersApi(() => f);

const addPasskey = (userId: string, credentialId: string, name: string, deviceType = 'multiDevice') =>
  passkeysRepository(f.t.core.db, f.t.core.clock).add({
    credentialId,
    userId,
    publicKey: 'cHVibGlj',
    signCount: 0,
    transports: ['internal'],
    deviceType,
    name,
  });

test('the admin API shows every second factor: a passkey-only user has has_second_factor true, second_factors [passkey] and each passkey (name, kind, created, last used), never its credential id', async () => {
  const { body } = await create();
  const credentialId = `cred-${body.id}`;
  await addPasskey(body.id, credentialId, 'Work laptop', 'singleDevice');
  clock.advance(1000);
  await addPasskey(body.id, `cred2-${body.id}`, 'Phone', 'multiDevice');
  clock.advance(1000);
  await passkeysRepository(f.t.core.db, f.t.core.clock).recordUse(credentialId, 0, 0);
  const { body: shown } = await read(body.id);
  assert.equal(shown.has_second_factor, true);
  assert.deepEqual(shown.second_factors, ['passkey']);
  const passkeys = shown.passkeys as { name: string; kind: string; created_at: string; last_used_at: string | null }[];
  assert.deepEqual(
    passkeys.map((p) => [p.name, p.kind]),
    [
      ['Work laptop', 'device-bound'],
      ['Phone', 'synced'],
    ],
  );
  assert.equal(passkeys[0]!.last_used_at, new Date(clock.now()).toISOString());
  assert.equal(passkeys[1]!.last_used_at, null);
  assert.ok(Date.parse(passkeys[0]!.created_at) < Date.parse(passkeys[1]!.created_at));
  assert.doesNotMatch(JSON.stringify(shown), new RegExp(credentialId), 'the credential id is not shown');
  // The list shows the same.
  const listed = (await (await f.api(`/admin/v1/users?q=${encodeURIComponent(body.username)}`)).json()) as { data: Record<string, unknown>[] };
  assert.deepEqual(listed.data[0]!.passkeys, shown.passkeys);
  assert.deepEqual(listed.data[0]!.second_factors, ['passkey']);
});

test("the user's ETag changes on every second-factor change: passkey added, used, removed; TOTP enrolled; recovery codes regenerated and spent; reset", async () => {
  const { body } = await create();
  const user = (await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id))!;
  const passkeys = passkeysRepository(f.t.core.db, f.t.core.clock);
  // Each change must move the ETag away from the one before it. (A set of factors identical to an earlier one,
  // e.g. none again after a passkey came and went, has that earlier ETag: the representation is the same.)
  let previous = '';
  const expectNewEtag = async (change: string) => {
    const { etag } = await read(body.id);
    assert.notEqual(etag, previous, `the ETag changed after: ${change}`);
    previous = etag;
    // A conditional read with the new ETag is 304: the ETag is the current one.
    assert.equal((await f.api(`/admin/v1/users/${body.id}`, { headers: { 'if-none-match': etag } })).status, 304);
  };
  await expectNewEtag('created');
  await addPasskey(body.id, `cred-${body.id}`, 'Key');
  await expectNewEtag('passkey added');
  await passkeys.recordUse(`cred-${body.id}`, 0, 0);
  await expectNewEtag('passkey used');
  await passkeys.remove(body.id, `cred-${body.id}`);
  await expectNewEtag('passkey removed');
  const { recoveryCodes } = await enrollTotp(f.t, user);
  await expectNewEtag('TOTP enrolled');
  await factorsOf(f.t).regenerateRecoveryCodes(body.id);
  await expectNewEtag('recovery codes regenerated (same kinds, same count)');
  const fresh = await factorsOf(f.t).regenerateRecoveryCodes(body.id);
  await expectNewEtag('recovery codes regenerated again within the same millisecond');
  assert.notDeepEqual(fresh, recoveryCodes);
  assert.equal((await factorsOf(f.t).verify(body.id, { recoveryCode: fresh[0]! })).ok, true);
  await expectNewEtag('a recovery code spent');
  assert.equal((await f.api(`/admin/v1/users/${body.id}/second-factors`, { method: 'DELETE' })).status, 204);
  await expectNewEtag('reset');
  await enrollTotp(f.t, user);
  await expectNewEtag('TOTP enrolled again within the same millisecond');
});
