// /account's own sign-in through an upstream provider (docs/federation.md), in Chromium against a REAL
// upstream (node-oidc-provider): the sign-in form offers "Continue with NAME" for each enabled provider, and
// the round trip signs in through the one pipeline (amr `fed`) and lands back on /account — after the
// account's own second factor, unless the provider is trusted for it. Each test is named after its rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createUser, PASSWORD } from '../helpers/users.js';
import { totpAt } from '../helpers/totp.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { pageText, startFederationWorld, type FederationWorld } from './federation-world.js';

describe("/account's own sign-in through a provider", () => {
  let w: FederationWorld;
  let upstream: IdentityProvider;
  let trusted: IdentityProvider;

  before(async () => {
    w = await startFederationWorld();
    upstream = await w.addProvider({ slug: 'upstream', name: 'Upstream', provision: true });
    trusted = await w.addProvider({ slug: 'acme', name: 'Acme SSO', trustMfa: true });
    const disabled = await w.addProvider({ slug: 'broken', name: 'Switched Off' });
    await w.t.core.db.updateTable('identity_providers').set({ enabled: false }).where('id', '=', disabled.id).execute();
  });
  after(async () => {
    await w?.close();
  });

  async function linkedAccount(provider: IdentityProvider, subject: string) {
    const user = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD });
    await w.t.core.db.insertInto('federated_identities').values({ provider_id: provider.id, subject, user_id: user.id, email: null }).execute();
    return user;
  }

  /** A fresh browser at /account's sign-in form, then "Continue with NAME" as `next`. */
  async function continueWith(name: string, next: { sub: string; email?: string; email_verified?: boolean; amr?: string[] }): Promise<Page> {
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    w.upstream.next = next;
    await page.goto(`${w.t.url}/account`);
    const back = page.waitForResponse((r) => r.url().startsWith(`${w.t.url}/federation/`));
    await page.click(`button:text("Continue with ${name}")`);
    await back;
    await page.waitForLoadState('load');
    return page;
  }

  const lastSignIn = async (userId: string) =>
    w.t.core.db
      .selectFrom('session_authentications as a')
      .innerJoin('browser_sessions as s', 's.id_hash', 'a.session_hash')
      .select('a.amr')
      .where('s.user_id', '=', userId)
      .orderBy('a.signed_in_at', 'desc')
      .executeTakeFirst();
  const loginSucceeded = (userId: string) =>
    w.t.core.db
      .selectFrom('audit_events')
      .select('details')
      .where('type', '=', 'login.succeeded')
      .where('subject', '=', userId)
      .orderBy('occurred_at', 'desc')
      .executeTakeFirst();

  test("/account's sign-in form offers Continue with NAME for each enabled provider, never a disabled one", async () => {
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    await page.goto(`${w.t.url}/account`);
    const buttons = await page.locator('form[action="/account/federation"] button').allInnerTexts();
    assert.deepEqual(buttons.sort(), ['Continue with Acme SSO', 'Continue with Upstream']);
    await page.close();
  });

  test('a linked account signs in to /account through its provider: the one pipeline (login.succeeded on the account face, amr fed), back on /account', async () => {
    const user = await linkedAccount(upstream, 'account-linked');
    const page = await continueWith('Upstream', { sub: 'account-linked' });
    await page.waitForSelector('h1:text("Your account")');
    assert.equal(new URL(page.url()).pathname, '/account');
    assert.ok((await pageText(page)).includes(user.username));
    assert.deepEqual((await lastSignIn(user.id))?.amr, ['fed']);
    const details = (await loginSucceeded(user.id))?.details as { face?: string; method?: string; amr?: string };
    assert.deepEqual([details.face, details.method, details.amr], ['account', 'federation', 'fed']);
    await page.close();
  });

  test("the account's own second factor still applies after a provider's sign-in on /account (amr fed otp mfa)", async () => {
    const user = await linkedAccount(upstream, 'account-with-totp');
    const { secret } = await enrollTotp(w.t, user);
    const page = await continueWith('Upstream', { sub: 'account-with-totp', amr: ['pwd', 'mfa'] });
    await page.waitForSelector('input[name="otp"]');
    assert.equal(await page.locator('h1:text("Your account")').count(), 0, 'nothing of the account before the code');
    assert.equal(await lastSignIn(user.id), undefined, 'not signed in yet');
    await page.fill('input[name="otp"]', totpAt(secret, Date.now() + 30_000));
    await page.click('form[action$="/second-factor"] button[type="submit"]');
    await page.waitForSelector('h1:text("Your account")');
    assert.deepEqual((await lastSignIn(user.id))?.amr, ['fed', 'otp', 'mfa']);
    await page.close();
  });

  test('a provider trusted for the second factor whose id_token says mfa satisfies it on /account too (amr fed mfa, no code asked)', async () => {
    const user = await linkedAccount(trusted, 'account-trusted');
    await enrollTotp(w.t, user);
    const page = await continueWith('Acme SSO', { sub: 'account-trusted', amr: ['pwd', 'otp', 'mfa'] });
    await page.waitForSelector('h1:text("Your account")');
    assert.deepEqual((await lastSignIn(user.id))?.amr, ['fed', 'mfa']);
    await page.close();
  });

  test('an upstream account not linked, whose verified address an account here has, is never signed in or linked from /account: a page says to sign in another way and link it', async () => {
    const local = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'owner@example.org', email_verified: true } });
    const page = await continueWith('Upstream', { sub: 'someone-else', email: 'owner@example.org', email_verified: true });
    await page.waitForSelector('h1:text("Not linked yet")');
    assert.equal(await lastSignIn(local.id), undefined);
    const link = await w.t.core.db.selectFrom('federated_identities').select('user_id').where('subject', '=', 'someone-else').executeTakeFirst();
    assert.equal(link, undefined);
    await page.close();
  });

  test('a new upstream account with --provision on gets its account just in time and lands on /account signed in (amr fed)', async () => {
    const page = await continueWith('Upstream', { sub: 'account-jit', email: 'jit-account@example.org', email_verified: true });
    await page.waitForSelector('h1:text("Your account")');
    const link = await w.t.core.db.selectFrom('federated_identities').select('user_id').where('subject', '=', 'account-jit').executeTakeFirstOrThrow();
    assert.deepEqual((await lastSignIn(link.user_id))?.amr, ['fed']);
    await page.close();
  });

  test('the callback of an /account sign-in is single use: the same answer again (a replay) signs nothing in', async () => {
    await linkedAccount(upstream, 'account-replayed');
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    w.upstream.next = { sub: 'account-replayed' };
    let callback = '';
    page.on('request', (r) => {
      if (r.url().includes('/federation/upstream/callback')) callback = r.url();
    });
    await page.goto(`${w.t.url}/account`);
    await page.click('button:text("Continue with Upstream")');
    await page.waitForSelector('h1:text("Your account")');
    assert.ok(callback);
    // The same browser (its cookies) sends the same callback again; the pending request was taken.
    const again = await page.request.get(callback, { maxRedirects: 0 });
    assert.equal(again.status(), 400);
    assert.match(await again.text(), /Sign-in not found|cannot continue/);
    await page.close();
  });
});
