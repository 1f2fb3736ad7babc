// Linked providers on /account, end to end in Chromium against the real upstream of federation-world.ts:
// the list, linking one from /account (a fresh proof first: linking adds a way in), unlinking — never the
// last way to sign in, even by two parallel unlinks — and their audit events (docs/federation.md).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { authorizeQuery } from '../interaction/browserless.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { pageText, startFederationWorld, type FederationWorld } from './federation-world.js';

describe('linked providers on /account in a real browser', () => {
  let w: FederationWorld;
  let client: Client;
  let upstream: IdentityProvider;
  let other: IdentityProvider;

  before(async () => {
    w = await startFederationWorld();
    upstream = await w.addProvider({ slug: 'upstream', name: 'Upstream', provision: true });
    other = await w.addProvider({ slug: 'other', name: 'Other IdP' });
    client = (await createClient(w.t.core.db, w.t.core.clock, { name: 'Federated Shop', redirectUris: [w.clientPage.redirectUri] })).client;
  });
  after(async () => {
    await w?.close();
  });

  /** A new password-less account: its first upstream sign-in through the client (JIT), then /account. */
  async function signedInJit(sub: string): Promise<{ page: Page; userId: string }> {
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    w.upstream.next = { sub, email: `${sub}@example.org`, email_verified: true };
    await page.goto(w.t.url + authorizeQuery(client.id, w.clientPage.redirectUri, { scope: 'openid' }));
    await page.click('text=Continue with Upstream');
    await page.waitForURL((url) => url.href.startsWith(w.clientPage.redirectUri));
    const link = await w.t.core.db
      .selectFrom('federated_identities')
      .select('user_id')
      .where('provider_id', '=', upstream.id)
      .where('subject', '=', sub)
      .executeTakeFirstOrThrow();
    await page.goto(`${w.t.url}/account`);
    return { page, userId: link.user_id };
  }

  const links = async (userId: string) =>
    (await w.t.core.db.selectFrom('federated_identities').select('provider_id').where('user_id', '=', userId).execute()).map((r) => r.provider_id).sort();
  const auditOf = (userId: string, type: string) =>
    w.t.core.db.selectFrom('audit_events').selectAll().where('subject', '=', userId).where('type', '=', type).execute();

  test('/account lists the linked providers and offers to link the others', async () => {
    const { page } = await signedInJit('list-1');
    assert.match((await page.locator('#linked-providers').textContent()) ?? '', /Upstream[\s\S]*list-1@example\.org/);
    assert.deepEqual(await page.locator('form[action="/account/identities/link"] button').allTextContents(), ['Link Other IdP']);
    await page.close();
  });

  test('never the last way to sign in: a password-less account cannot unlink its only provider', async () => {
    const { page, userId } = await signedInJit('last-1');
    await page.click('button[aria-label="Unlink Upstream"]');
    await page.waitForURL(/error=last_way_in/);
    assert.match(await pageText(page), /only way to sign in/);
    assert.deepEqual(await links(userId), [upstream.id]);
    assert.equal((await auditOf(userId, 'account.identity_unlinked')).length, 0);
    await page.close();
  });

  test('linking from /account: a second provider is linked to the signed-in account (audited), then the first may be unlinked (audited)', async () => {
    const { page, userId } = await signedInJit('link-1');
    w.upstream.next = { sub: 'link-1-at-other', email: 'whatever@example.net', email_verified: false };
    await page.click('text=Link Other IdP');
    await page.waitForURL(/done=identity_linked/);
    assert.deepEqual(await links(userId), [upstream.id, other.id].sort());
    const [linked] = await auditOf(userId, 'account.identity_linked').then((rows) =>
      rows.filter((r) => (r.details as { how?: string }).how === 'linked_from_account'),
    );
    assert.ok(linked, 'account.identity_linked from /account');
    assert.equal((linked.details as { provider: string }).provider, 'other');
    // The security notice: the account's address is told a way to sign in was added (through the outbox).
    const notices = await w.t.core.db
      .selectFrom('outbox_messages')
      .select(['kind', 'recipient'])
      .where('recipient', '=', 'link-1@example.org')
      .where('kind', '=', 'factor_added')
      .execute();
    assert.equal(notices.length, 1, 'one "a sign-in method was added" notice to the account address');

    await page.click('button[aria-label="Unlink Upstream"]');
    await page.waitForURL(/done=identity_unlinked/);
    assert.deepEqual(await links(userId), [other.id]);
    assert.equal((await auditOf(userId, 'account.identity_unlinked')).length, 1);
    await page.close();
  });

  test('linking needs a fresh proof: a session whose sign-in is older than REAUTH_MAX_AGE is asked to confirm it is them, and nothing leaves for the provider', async () => {
    const { page, userId } = await signedInJit('stale-1');
    await w.t.core.db
      .updateTable('browser_sessions')
      .set({ auth_time: new Date(w.t.core.clock.now() - 24 * 3600_000) })
      .where('user_id', '=', userId)
      .execute();
    await page.click('text=Link Other IdP');
    await page.waitForURL(/error=reauth_link/);
    assert.match(await pageText(page), /Confirm it is you before linking or unlinking a sign-in provider/);
    assert.deepEqual(await links(userId), [upstream.id]);
    const session = await w.t.core.db.selectFrom('browser_sessions').select('upstream_link').where('user_id', '=', userId).executeTakeFirstOrThrow();
    assert.equal(session.upstream_link, null, 'no pending link request');
    await page.close();
  });

  test('never the last way to sign in, under parallel requests: of two unlinks of the last two links, one is refused', async () => {
    const { page, userId } = await signedInJit('race-1');
    w.upstream.next = { sub: 'race-1-at-other', email: 'race@example.net', email_verified: true };
    await page.click('text=Link Other IdP');
    await page.waitForURL(/done=identity_linked/);
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const unlink = (slug: string) =>
      page.request.post(`${w.t.url}/account/identities/unlink`, { form: { csrf, provider: slug }, headers: { origin: w.t.url }, maxRedirects: 0 });
    const answers = await Promise.all([unlink('upstream'), unlink('other')]);
    const locations = answers.map((r) => r.headers().location ?? '').sort();
    assert.deepEqual(locations, ['/account?done=identity_unlinked', '/account?error=last_way_in']);
    assert.equal((await links(userId)).length, 1);
    await page.close();
  });
});
