// Never the last way to sign in (src/user-rules/unlink-provider.ts), under concurrency: the check and the
// delete hold the user's row, so an unlink that starts while another one of the same account is still
// uncommitted waits for it and then sees one link fewer. Deterministic: the first unlink is kept open.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { NO_PASSWORD_HASH } from '../../src/user-rules/sign-in-ways.js';
import { unlinkProvider } from '../../src/user-rules/unlink-provider.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { storedIdentityProvider } from '../helpers/identity-providers.js';
import { createUser } from '../helpers/users.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const provider = (slug: string) => storedIdentityProvider(t.core.db, slug);

test('never the last way to sign in, under parallel requests: an unlink waits for a concurrent one of the same account and is refused when it would leave none', async () => {
  const [a, b] = [await provider('race-a'), await provider('race-b')];
  const user = await createUser(t.core.db, t.core.clock, {});
  await t.core.db.updateTable('users').set({ password_hash: NO_PASSWORD_HASH }).where('id', '=', user.id).execute();
  for (const p of [a, b])
    await t.core.db
      .insertInto('federated_identities')
      .values({ provider_id: p.id, subject: `s-${p.slug}`, user_id: user.id, email: null, created_at: new Date(), last_used_at: null })
      .execute();
  const event = { type: 'account.identity_unlinked' as const, actor: { kind: 'user' as const, userId: user.id } };

  let second: Promise<string> | undefined;
  const first = await t.core.store.transaction(async (tx) => {
    const outcome = await unlinkProvider({ store: tx, audit: t.core.audit }, { userId: user.id, providerId: a.id }, event);
    // The second unlink starts while the first is written but not committed.
    second = unlinkProvider({ store: t.core.store, audit: t.core.audit }, { userId: user.id, providerId: b.id }, event);
    await sleep(300);
    return outcome;
  });
  assert.equal(first, 'unlinked');
  assert.equal(await second, 'last_way_in');
  const left = await t.core.db.selectFrom('federated_identities').select('provider_id').where('user_id', '=', user.id).execute();
  assert.deepEqual(
    left.map((r) => r.provider_id),
    [b.id],
  );
});
