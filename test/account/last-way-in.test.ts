// Never the last way to sign in (src/user-rules/sign-in-ways.ts), on /account: a passkey is a way in like a
// password or a linked provider, so an account without a password keeps its last one — removing the passkey
// of an account whose only other way was a provider it has unlinked is refused, while unlinking that last
// provider is allowed as long as the passkey remains. Software passkeys (test/helpers/soft-passkey.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { NO_PASSWORD_HASH } from '../../src/user-rules/sign-in-ways.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { storedIdentityProvider } from '../helpers/identity-providers.js';
import { addSoftPasskey } from '../helpers/soft-passkey.js';
import { createUser } from '../helpers/users.js';
import { AccountBrowser } from './account-browser.js';

describe('the last way in on /account', () => {
  let t: TestApp;
  let provider: IdentityProvider;
  before(async () => {
    t = await startTestApp();
    provider = await storedIdentityProvider(t.core.db, 'upstream', { name: 'Upstream', provision: true });
  });
  after(() => t.close());

  /** A federated-only account (no password) with one link and one passkey, signed in to /account with the passkey. */
  async function federatedWithPasskey(subject: string) {
    const user = await createUser(t.core.db, t.core.clock, {});
    await t.core.db.updateTable('users').set({ password_hash: NO_PASSWORD_HASH }).where('id', '=', user.id).execute();
    await t.core.db.insertInto('federated_identities').values({ provider_id: provider.id, subject, user_id: user.id, email: null }).execute();
    const key = await addSoftPasskey(t.core.db, t.core.clock, user.id);
    const browser = new AccountBrowser(t);
    assert.equal((await browser.passkey(key)).status, 200, 'a passwordless sign-in with the passkey');
    const { csrf } = await browser.page();
    return { user, key, browser, csrf };
  }

  const passkeysOf = async (userId: string) =>
    (await t.core.db.selectFrom('passkey_credentials').select('credential_id').where('user_id', '=', userId).execute()).length;
  const linksOf = async (userId: string) =>
    (await t.core.db.selectFrom('federated_identities').select('subject').where('user_id', '=', userId).execute()).length;

  test('never the last way to sign in: a federated-only account without a password cannot remove its last passkey once its provider is unlinked, and unlinking the last provider while the passkey remains is allowed', async () => {
    const { user, key, browser, csrf } = await federatedWithPasskey('owner-1');
    const unlinked = await browser.browser.post('/account/identities/unlink', { csrf, provider: provider.slug });
    assert.equal(unlinked.headers.get('location'), '/account?done=identity_unlinked', 'the passkey remains: unlinking the last provider is allowed');
    assert.equal(await linksOf(user.id), 0);

    const refused = await browser.browser.post('/account/passkeys/remove', { csrf, credential: key.credentialId });
    assert.equal(refused.headers.get('location'), '/account?error=passkey_last_way_in');
    assert.equal(await passkeysOf(user.id), 1, 'the last way in is kept');
    assert.match(await (await browser.browser.get('/account?error=passkey_last_way_in')).text(), /That passkey is the only way to sign in to your account/);
    const removedEvents = await t.core.db
      .selectFrom('audit_events')
      .select('type')
      .where('subject', '=', user.id)
      .where('type', '=', 'account.second_factor_removed')
      .execute();
    assert.equal(removedEvents.length, 0, 'nothing removed, nothing audited');
  });

  test('a passkey may go while a linked provider remains a way in (and the removal is audited)', async () => {
    const { user, key, browser, csrf } = await federatedWithPasskey('owner-2');
    const removed = await browser.browser.post('/account/passkeys/remove', { csrf, credential: key.credentialId });
    assert.equal(removed.headers.get('location'), '/account?done=passkey_removed');
    assert.equal(await passkeysOf(user.id), 0);
    const event = await t.core.db
      .selectFrom('audit_events')
      .select('details')
      .where('subject', '=', user.id)
      .where('type', '=', 'account.second_factor_removed')
      .executeTakeFirstOrThrow();
    assert.deepEqual(event.details, { face: 'account', factor: 'passkey' });
  });

  test('never the last way to sign in, under parallel requests: of an unlink of the last provider and the removal of the last passkey sent at once, exactly one passes', async () => {
    const { user, key, browser, csrf } = await federatedWithPasskey('owner-3');
    const answers = await Promise.all([
      browser.browser.post('/account/identities/unlink', { csrf, provider: provider.slug }),
      browser.browser.post('/account/passkeys/remove', { csrf, credential: key.credentialId }),
    ]);
    const locations = answers.map((r) => r.headers.get('location') ?? '');
    const passed = locations.filter((l) => l.includes('done=')).length;
    assert.equal(passed, 1, locations.join(', '));
    assert.equal((await passkeysOf(user.id)) + (await linksOf(user.id)), 1, 'one way in is left');
  });
});
