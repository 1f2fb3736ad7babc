// `--store-tokens` (docs/federation.md), in Chromium against a REAL upstream (node-oidc-provider, which
// issues an access and a refresh token with every code): with it off nothing of the upstream's tokens is
// written anywhere; with it on they are kept per federated identity, sealed under the key-encryption key,
// replaced at each sign-in, and gone with the link, with the provider, or when the switch is turned off.
// "Anywhere" is checked by reading every row of every table of the database as text. Each test is named after its rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { authorizeQuery } from '../interaction/browserless.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { createUser, PASSWORD } from '../helpers/users.js';
import { totpAt } from '../helpers/totp.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import { keyEncryption } from '../../src/crypto/key-encryption.js';
import { openUpstreamTokens } from '../../src/federation/upstream-tokens.js';
import { deleteIdentityProviderRecord, identityProviderServiceDeps, updateIdentityProviderSwitches } from '../../src/admin-services/index.js';
import { federatedIdentityTokensRepository } from '../../src/storage/repositories/federated-identity-tokens-repository.js';
import { unlinkProvider } from '../../src/user-rules/unlink-provider.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { startFederationWorld, type FederationWorld } from './federation-world.js';

describe('the upstream tokens of a federated sign-in (--store-tokens)', () => {
  let w: FederationWorld;
  let client: Client;
  let storing: IdentityProvider;
  let notStoring: IdentityProvider;

  before(async () => {
    w = await startFederationWorld();
    storing = await w.addProvider({ slug: 'acme', name: 'Acme SSO', storeTokens: true });
    notStoring = await w.addProvider({ slug: 'upstream', name: 'Upstream', provision: true });
    client = (await createClient(w.t.core.db, w.t.core.clock, { name: 'Shop', redirectUris: [w.clientPage.redirectUri] })).client;
  });
  after(async () => {
    await w?.close();
  });

  const tokens = () => federatedIdentityTokensRepository(w.t.core.db);
  const admin = () => identityProviderServiceDeps(w.t.core, w.t.core.audit);

  async function linkedAccount(provider: IdentityProvider, subject: string) {
    const user = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD });
    await w.t.core.db.insertInto('federated_identities').values({ provider_id: provider.id, subject, user_id: user.id, email: null }).execute();
    return user;
  }

  /** Signs in through `button` as `sub` and waits to be back at the client; the token response the upstream gave. */
  async function signIn(button: string, next: { sub: string; email?: string; email_verified?: boolean }, page?: Page) {
    await w.chromium.context.clearCookies();
    const at = page ?? (await w.chromium.context.newPage());
    w.upstream.next = next;
    const before = w.upstream.issued.length;
    await at.goto(w.t.url + authorizeQuery(client.id, w.clientPage.redirectUri, { scope: 'openid' }));
    await at.click(`text=${button}`);
    await at.waitForURL((url) => url.href.startsWith(w.clientPage.redirectUri) || url.pathname.endsWith('/link'));
    assert.equal(w.upstream.issued.length, before + 1, 'the upstream answered one token request');
    const issued = w.upstream.issued.at(-1)!;
    assert.ok(issued.refresh_token, 'the upstream gave a refresh token too');
    return { page: at, issued };
  }

  /** Every row of every table, as text: where a plaintext token would show if it were written anywhere. */
  async function wholeDatabase(): Promise<string> {
    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(w.t.core.db);
    const parts: string[] = [];
    for (const { name } of tables.rows) {
      const rows = await sql<{ row: unknown }>`select to_jsonb(t) as row from ${sql.table(name)} t`.execute(w.t.core.db);
      parts.push(`${name}: ${JSON.stringify(rows.rows)}`);
    }
    return parts.join('\n');
  }

  test('--store-tokens off: after a sign-in, nothing of the upstream tokens is written anywhere (no row, no column holds them)', async () => {
    await linkedAccount(notStoring, 'not-kept');
    const { page, issued } = await signIn('Continue with Upstream', { sub: 'not-kept' });
    const everything = await wholeDatabase();
    assert.ok(everything.includes('not-kept'), 'the dump does read the federated identity');
    assert.equal(everything.includes(issued.access_token), false, 'the access token is nowhere');
    assert.equal(everything.includes(issued.refresh_token!), false, 'the refresh token is nowhere');
    assert.equal(await tokens().find(notStoring.id, 'not-kept'), undefined);
    await page.close();
  });

  test('--store-tokens off: a just-in-time account keeps nothing of the upstream tokens either', async () => {
    const { page, issued } = await signIn('Continue with Upstream', { sub: 'jit-not-kept', email: 'jit-not-kept@example.org', email_verified: true });
    const everything = await wholeDatabase();
    assert.ok(everything.includes('jit-not-kept'));
    assert.equal(everything.includes(issued.access_token) || everything.includes(issued.refresh_token!), false);
    await page.close();
  });

  test('--store-tokens on: the stored value is not the plaintext token and unseals to it; the next sign-in replaces it', async () => {
    await linkedAccount(storing, 'kept');
    const first = await signIn('Continue with Acme SSO', { sub: 'kept' });
    const stored = await tokens().find(storing.id, 'kept');
    assert.ok(stored, 'a row for the identity');
    const everything = await wholeDatabase();
    assert.equal(everything.includes(first.issued.access_token), false, 'the plaintext access token is in no row');
    assert.equal(everything.includes(first.issued.refresh_token!), false, 'nor the refresh token');
    const opened = openUpstreamTokens(keyEncryption(w.t.core.keyEncryptionKey), stored);
    assert.equal(opened.accessToken, first.issued.access_token);
    assert.equal(opened.refreshToken, first.issued.refresh_token);
    assert.equal(stored.hasRefreshToken, true);
    assert.equal(stored.scope, first.issued.scope ?? null);
    assert.ok(stored.expiresAt && first.issued.expires_in, 'the expiry is kept');
    const expected = stored.storedAt.getTime() + first.issued.expires_in * 1000;
    assert.ok(Math.abs(stored.expiresAt.getTime() - expected) <= 1000, 'expires_in seconds after the sign-in');
    assert.throws(() => openUpstreamTokens(keyEncryption(w.t.core.keyEncryptionKey), { ...stored, subject: 'another-identity' }), 'bound to its identity');
    await first.page.close();

    const second = await signIn('Continue with Acme SSO', { sub: 'kept' });
    const replaced = await tokens().find(storing.id, 'kept');
    assert.notEqual(second.issued.access_token, first.issued.access_token);
    assert.equal(openUpstreamTokens(keyEncryption(w.t.core.keyEncryptionKey), replaced!).accessToken, second.issued.access_token);
    await second.page.close();
  });

  test('--store-tokens on: a link made after proof keeps the tokens, which wait sealed on the interaction until then', async () => {
    const local = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'proved@example.org', email_verified: true } });
    await w.t.core.db.updateTable('identity_providers').set({ link: 'verified-email' }).where('id', '=', storing.id).execute();
    const { page, issued } = await signIn('Continue with Acme SSO', { sub: 'proved', email: 'proved@example.org', email_verified: true });
    assert.match(page.url(), /\/link$/);
    assert.equal(await tokens().find(storing.id, 'proved'), undefined, 'nothing linked, nothing kept yet');
    assert.equal((await wholeDatabase()).includes(issued.access_token), false, 'the waiting tokens are sealed');
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('form[action$="/link"] button[type="submit"]');
    await page.waitForURL((url) => url.href.startsWith(w.clientPage.redirectUri));
    const stored = await tokens().find(storing.id, 'proved');
    assert.ok(stored);
    assert.equal(openUpstreamTokens(keyEncryption(w.t.core.keyEncryptionKey), stored).accessToken, issued.access_token);
    const link = await w.t.core.db.selectFrom('federated_identities').select('user_id').where('subject', '=', 'proved').executeTakeFirst();
    assert.equal(link?.user_id, local.id);
    await page.close();
  });

  /** Signs in through `button` as `sub` up to the account's own second factor (the code form). */
  async function signInToSecondFactor(button: string, next: { sub: string; email?: string; email_verified?: boolean }) {
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    w.upstream.next = next;
    const before = w.upstream.issued.length;
    await page.goto(w.t.url + authorizeQuery(client.id, w.clientPage.redirectUri, { scope: 'openid' }));
    await page.click(`text=${button}`);
    await page.waitForSelector('input[name="otp"]');
    assert.equal(w.upstream.issued.length, before + 1, 'the upstream answered one token request');
    return { page, issued: w.upstream.issued.at(-1)! };
  }

  test("--store-tokens stores the upstream tokens only when the sign-in completes: abandoned at the account's own second factor, no token row; completed, the row", async () => {
    // Abandoned: the browser stops at the code form (the upstream's part is done).
    const abandoning = await linkedAccount(storing, 'abandons-2fa');
    await enrollTotp(w.t, abandoning);
    const abandoned = await signInToSecondFactor('Continue with Acme SSO', { sub: 'abandons-2fa' });
    assert.equal(await tokens().find(storing.id, 'abandons-2fa'), undefined, 'no token row while the second factor is outstanding');
    assert.equal((await wholeDatabase()).includes(abandoned.issued.access_token), false, 'what waits is sealed');
    await abandoned.page.close();
    assert.equal(await tokens().find(storing.id, 'abandons-2fa'), undefined, 'nor after the browser left');

    // Completed: the code is given, the sign-in completes, the tokens of that sign-in are written.
    const completing = await linkedAccount(storing, 'completes-2fa');
    const { secret } = await enrollTotp(w.t, completing);
    const { page, issued } = await signInToSecondFactor('Continue with Acme SSO', { sub: 'completes-2fa' });
    assert.equal(await tokens().find(storing.id, 'completes-2fa'), undefined);
    await page.fill('input[name="otp"]', totpAt(secret, Date.now() + 30_000));
    await page.click('form:has(input[name="otp"]) button[type="submit"]');
    await page.waitForURL((url) => url.href.startsWith(w.clientPage.redirectUri));
    const stored = await tokens().find(storing.id, 'completes-2fa');
    assert.ok(stored, 'the row, once signed in');
    assert.equal(openUpstreamTokens(keyEncryption(w.t.core.keyEncryptionKey), stored).accessToken, issued.access_token);
    await page.close();
  });

  test("--store-tokens: a link made after a password proof stores the tokens only once the account's own second factor is passed", async () => {
    const local = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'proved-2fa@example.org', email_verified: true } });
    const { secret } = await enrollTotp(w.t, local);
    await w.t.core.db.updateTable('identity_providers').set({ link: 'verified-email' }).where('id', '=', storing.id).execute();
    const { page, issued } = await signIn('Continue with Acme SSO', { sub: 'proved-2fa', email: 'proved-2fa@example.org', email_verified: true });
    assert.match(page.url(), /\/link$/);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('form[action$="/link"] button[type="submit"]');
    await page.waitForSelector('input[name="otp"]');
    assert.equal(await tokens().find(storing.id, 'proved-2fa'), undefined, 'linked, but the sign-in is not complete: no token row');
    await page.fill('input[name="otp"]', totpAt(secret, Date.now() + 30_000));
    await page.click('form:has(input[name="otp"]) button[type="submit"]');
    await page.waitForURL((url) => url.href.startsWith(w.clientPage.redirectUri));
    const stored = await tokens().find(storing.id, 'proved-2fa');
    assert.ok(stored);
    assert.equal(openUpstreamTokens(keyEncryption(w.t.core.keyEncryptionKey), stored).accessToken, issued.access_token);
    await page.close();
  });

  test("--store-tokens on /account's own sign-in: no token row while the account's second factor is outstanding, the row once it is passed", async () => {
    const user = await linkedAccount(storing, 'account-2fa');
    const { secret } = await enrollTotp(w.t, user);
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    w.upstream.next = { sub: 'account-2fa' };
    await page.goto(`${w.t.url}/account`);
    await page.click('button:text("Continue with Acme SSO")');
    await page.waitForSelector('input[name="otp"]');
    const issued = w.upstream.issued.at(-1)!;
    assert.equal(await tokens().find(storing.id, 'account-2fa'), undefined, 'abandoned here, nothing is stored');
    await page.fill('input[name="otp"]', totpAt(secret, Date.now() + 30_000));
    await page.click('form[action$="/second-factor"] button[type="submit"]');
    await page.waitForSelector('h1:text("Your account")');
    const stored = await tokens().find(storing.id, 'account-2fa');
    assert.ok(stored, 'the row, once signed in');
    assert.equal(openUpstreamTokens(keyEncryption(w.t.core.keyEncryptionKey), stored).accessToken, issued.access_token);
    await page.close();
  });

  test('--store-tokens: removing the link deletes the stored tokens', async () => {
    const user = await linkedAccount(storing, 'unlinked');
    await (await signIn('Continue with Acme SSO', { sub: 'unlinked' })).page.close();
    assert.ok(await tokens().find(storing.id, 'unlinked'));
    const outcome = await unlinkProvider(
      w.t.core,
      { userId: user.id, providerId: storing.id },
      { type: 'account.identity_unlinked', actor: { kind: 'user', userId: user.id } },
    );
    assert.equal(outcome, 'unlinked');
    assert.equal(await tokens().find(storing.id, 'unlinked'), undefined);
  });

  test('--store-tokens turned off deletes every stored token of the provider, and a sign-in then keeps none', async () => {
    await linkedAccount(storing, 'switched-off');
    await (await signIn('Continue with Acme SSO', { sub: 'switched-off' })).page.close();
    assert.ok(await tokens().find(storing.id, 'switched-off'));
    storing = await updateIdentityProviderSwitches(admin(), storing.slug, { storeTokens: false }, { actor: { kind: 'system' } });
    assert.equal(storing.storeTokens, false);
    const left = await w.t.core.db.selectFrom('federated_identity_tokens').select('subject').where('provider_id', '=', storing.id).execute();
    assert.deepEqual(left, []);
    const { page, issued } = await signIn('Continue with Acme SSO', { sub: 'switched-off' });
    assert.equal((await wholeDatabase()).includes(issued.access_token), false);
    await page.close();
    storing = await updateIdentityProviderSwitches(admin(), storing.slug, { storeTokens: true }, { actor: { kind: 'system' } });
  });

  test('--store-tokens: deleting the provider deletes the stored tokens of its identities', async () => {
    const doomed = await w.addProvider({ slug: 'other', name: 'Other SSO', storeTokens: true });
    await linkedAccount(doomed, 'doomed');
    await (await signIn('Continue with Other SSO', { sub: 'doomed' })).page.close();
    assert.ok(await tokens().find(doomed.id, 'doomed'));
    await deleteIdentityProviderRecord(admin(), doomed.slug, undefined, { actor: { kind: 'system' } });
    assert.equal(await tokens().find(doomed.id, 'doomed'), undefined);
  });
});
