// `--trust-mfa` (docs/federation.md), in Chromium against a REAL upstream (node-oidc-provider, whose login
// step says how the user signed in: the id_token's amr): a provider trusted for the second factor whose
// id_token says `mfa` satisfies the local account's own second factor; anything less — no `mfa` in the
// id_token, or a provider not trusted — leaves the account's code to be asked. Each test is named after its rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { authorizeQuery } from '../interaction/browserless.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { createUser, PASSWORD } from '../helpers/users.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { startFederationWorld, type FederationWorld } from './federation-world.js';

describe('a provider trusted for the second factor (--trust-mfa)', () => {
  let w: FederationWorld;
  let client: Client;
  let trusted: IdentityProvider;
  let untrusted: IdentityProvider;

  before(async () => {
    w = await startFederationWorld();
    trusted = await w.addProvider({ slug: 'acme', name: 'Acme SSO', trustMfa: true });
    untrusted = await w.addProvider({ slug: 'upstream', name: 'Upstream' });
    client = (await createClient(w.t.core.db, w.t.core.clock, { name: 'Shop', redirectUris: [w.clientPage.redirectUri] })).client;
  });
  after(async () => {
    await w?.close();
  });

  /** A local account with its own authenticator app, linked to `provider` as `subject`. */
  async function linkedAccountWithTotp(provider: IdentityProvider, subject: string) {
    const user = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD });
    await enrollTotp(w.t, user);
    await w.t.core.db.insertInto('federated_identities').values({ provider_id: provider.id, subject, user_id: user.id, email: null }).execute();
    return user;
  }

  async function signIn(button: string, next: { sub: string; amr?: string[] }): Promise<Page> {
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    w.upstream.next = next;
    await page.goto(w.t.url + authorizeQuery(client.id, w.clientPage.redirectUri, { scope: 'openid' }));
    await page.click(`text=${button}`);
    // Either back at the client, or at the account's second factor.
    await page.waitForFunction(`location.href.startsWith(${JSON.stringify(w.clientPage.redirectUri)}) || document.querySelector('input[name="otp"]') !== null`);
    return page;
  }

  const atClient = (page: Page) => page.url().startsWith(w.clientPage.redirectUri);
  const lastAmr = async (userId: string) =>
    (
      await w.t.core.db
        .selectFrom('session_authentications as a')
        .innerJoin('browser_sessions as s', 's.id_hash', 'a.session_hash')
        .select('a.amr')
        .where('s.user_id', '=', userId)
        .orderBy('a.signed_in_at', 'desc')
        .executeTakeFirst()
    )?.amr;

  test("--trust-mfa: a trusted provider whose id_token's amr says mfa satisfies the account's own second factor (amr fed mfa, no code asked)", async () => {
    const user = await linkedAccountWithTotp(trusted, 'trusted-mfa');
    const page = await signIn('Continue with Acme SSO', { sub: 'trusted-mfa', amr: ['pwd', 'otp', 'mfa'] });
    assert.ok(atClient(page), `at ${page.url()}`);
    assert.deepEqual(await lastAmr(user.id), ['fed', 'mfa']);
    await page.close();
  });

  test("--trust-mfa takes the id_token's word only: without mfa in its amr, the trusted provider's sign-in still asks for the account's code", async () => {
    const user = await linkedAccountWithTotp(trusted, 'trusted-one-factor');
    const page = await signIn('Continue with Acme SSO', { sub: 'trusted-one-factor', amr: ['pwd'] });
    await page.waitForSelector('input[name="otp"]');
    assert.equal(atClient(page), false);
    assert.equal(await lastAmr(user.id), undefined, 'not signed in yet');
    await page.close();
  });

  test("a provider not trusted for the second factor ignores the upstream's mfa: the account's code is asked", async () => {
    const user = await linkedAccountWithTotp(untrusted, 'untrusted-mfa');
    const page = await signIn('Continue with Upstream', { sub: 'untrusted-mfa', amr: ['pwd', 'otp', 'mfa'] });
    await page.waitForSelector('input[name="otp"]');
    assert.equal(atClient(page), false);
    assert.equal(await lastAmr(user.id), undefined);
    await page.close();
  });
});
