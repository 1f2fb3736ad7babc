// The federated sign-in end to end, in Chromium, against a REAL upstream started by the test
// (node-oidc-provider): "Continue with NAME", the callback, and every linking rule (docs/federation.md).
// Each rule's test is named after it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { authorizeQuery } from '../interaction/browserless.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { createUser, PASSWORD } from '../helpers/users.js';
import { totpAt } from '../helpers/totp.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { pageText, startFederationWorld, type FederationWorld } from './federation-world.js';

describe('federated sign-in in a real browser', () => {
  let w: FederationWorld;
  let client: Client;
  let upstream: IdentityProvider;
  let acme: IdentityProvider;

  before(async () => {
    w = await startFederationWorld();
    upstream = await w.addProvider({ slug: 'upstream', name: 'Upstream', provision: true });
    acme = await w.addProvider({ slug: 'acme', name: 'Acme SSO', domains: ['acme.example'], provision: true });
    client = (await createClient(w.t.core.db, w.t.core.clock, { name: 'Federated Shop', redirectUris: [w.clientPage.redirectUri] })).client;
  });
  after(async () => {
    await w?.close();
  });

  async function freshPage(forClient: Client = client, extra: Record<string, string> = {}): Promise<Page> {
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    await page.goto(w.t.url + authorizeQuery(forClient.id, w.clientPage.redirectUri, { scope: 'openid profile email', ...extra }));
    return page;
  }

  const landedAtClient = async (page: Page) => {
    await page.waitForURL((url) => url.href.startsWith(w.clientPage.redirectUri));
    return new URL(page.url());
  };

  const linkOf = (providerId: string, subject: string) =>
    w.t.core.db.selectFrom('federated_identities').selectAll().where('provider_id', '=', providerId).where('subject', '=', subject).executeTakeFirst();

  const lastAmr = async (userId: string) => {
    const row = await w.t.core.db
      .selectFrom('session_authentications as a')
      .innerJoin('browser_sessions as s', 's.id_hash', 'a.session_hash')
      .select('a.amr')
      .where('s.user_id', '=', userId)
      .orderBy('a.signed_in_at', 'desc')
      .executeTakeFirst();
    return row?.amr;
  };

  const auditTypes = async (userId: string) =>
    (await w.t.core.db.selectFrom('audit_events').select('type').where('subject', '=', userId).orderBy('occurred_at').execute()).map((r) => r.type);

  test('the login page offers "Continue with NAME" for each provider the client offers', async () => {
    const page = await freshPage();
    const buttons = await page.locator('button[name="provider"]').allTextContents();
    assert.deepEqual(buttons, ['Continue with Upstream', 'Continue with Acme SSO']);
    await page.close();
  });

  test('per-client provider lists: a client offering one provider shows only it, and another is refused', async () => {
    const narrow = (await createClient(w.t.core.db, w.t.core.clock, { name: 'Narrow', redirectUris: [w.clientPage.redirectUri], identityProviders: ['acme'] }))
      .client;
    const page = await freshPage(narrow);
    assert.deepEqual(await page.locator('button[name="provider"]').allTextContents(), ['Continue with Acme SSO']);
    // A forged choice of a provider this client does not offer.
    await page.evaluate(`document.querySelector('button[name="provider"]').value = 'upstream'`);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/federation') && r.request().method() === 'POST'),
      page.click('button[name="provider"]'),
    ]);
    assert.equal(response.status(), 400);
    assert.match(await pageText(page), /not available/);
    await page.close();
  });

  test('JIT account: a first upstream sign-in with provisioning on creates the user (e-mail verified as asserted) and signs in with amr fed', async () => {
    w.upstream.next = { sub: 'jit-1', email: 'new.person@example.org', email_verified: true, name: 'New Person' };
    const page = await freshPage();
    await page.click('text=Continue with Upstream');
    const landed = await landedAtClient(page);
    assert.match(landed.searchParams.get('code') ?? '', /^[A-Za-z0-9_-]{43,}$/);
    const link = await linkOf(upstream.id, 'jit-1');
    assert.ok(link, 'the federated identity is linked');
    const user = await w.t.core.db.selectFrom('users').selectAll().where('id', '=', link.user_id).executeTakeFirstOrThrow();
    assert.equal(user.email, 'new.person@example.org');
    assert.equal(user.email_verified, true);
    assert.equal(user.name, 'New Person');
    assert.ok(!user.password_hash.startsWith('$'), 'a provisioned account has no password');
    assert.deepEqual(await lastAmr(user.id), ['fed']);
    const types = await auditTypes(user.id);
    for (const type of ['account.provisioned', 'account.identity_linked', 'login.succeeded']) assert.ok(types.includes(type), `${type} in ${types.join(', ')}`);
    await page.close();

    // The second time: already linked, signed in as the same user, nothing new created.
    const again = await freshPage();
    await again.click('text=Continue with Upstream');
    await landedAtClient(again);
    assert.equal((await w.t.core.db.selectFrom('users').select('id').where('email', '=', 'new.person@example.org').execute()).length, 1);
    await again.close();
  });

  test('a provisioned account is e-mail-verified only if the upstream asserted it', async () => {
    w.upstream.next = { sub: 'jit-unverified', email: 'unverified.new@example.org', email_verified: false };
    const page = await freshPage();
    await page.click('text=Continue with Upstream');
    await landedAtClient(page);
    const user = await w.t.core.db.selectFrom('users').selectAll().where('email', '=', 'unverified.new@example.org').executeTakeFirstOrThrow();
    assert.equal(user.email_verified, false);
    await page.close();
  });

  test('linking after proof: the same verified e-mail links only once the local password is proved', async () => {
    const local = await createUser(w.t.core.db, w.t.core.clock, {
      password: PASSWORD,
      profile: { name: 'Alice', email: 'alice@example.org', email_verified: true },
    });
    w.upstream.next = { sub: 'alice-upstream', email: 'Alice@example.org', email_verified: true };
    const page = await freshPage();
    await page.click('text=Continue with Upstream');
    await page.waitForURL(/\/link$/);
    assert.match(await pageText(page), /alice@example\.org/);
    assert.equal(await linkOf(upstream.id, 'alice-upstream'), undefined, 'nothing is linked before the proof');
    await page.fill('input[name="password"]', 'not the password');
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/link\?failed=1$/);
    assert.match(await pageText(page), /That was not accepted/);
    assert.equal(await linkOf(upstream.id, 'alice-upstream'), undefined, 'a wrong password links nothing');
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('button[type="submit"]');
    await landedAtClient(page);
    assert.equal((await linkOf(upstream.id, 'alice-upstream'))?.user_id, local.id);
    assert.deepEqual(await lastAmr(local.id), ['fed', 'pwd']);
    assert.ok((await auditTypes(local.id)).includes('account.identity_linked'));
    await page.close();
  });

  test("linking after proof by the account's authenticator app: a code links, and with the upstream makes two factors (amr fed otp mfa, no further factor asked)", async () => {
    const local = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'coded@example.org', email_verified: true } });
    const { secret } = await enrollTotp(w.t, local);
    w.upstream.next = { sub: 'coded-upstream', email: 'coded@example.org', email_verified: true };
    const page = await freshPage();
    await page.click('text=Continue with Upstream');
    await page.waitForURL(/\/link$/);
    await page.fill('input[name="otp"]', '000000');
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/link\?failed=1$/);
    assert.equal(await linkOf(upstream.id, 'coded-upstream'), undefined, 'a wrong code links nothing');
    await page.fill('input[name="otp"]', totpAt(secret, Date.now() + 30_000));
    await page.click('button[type="submit"]');
    await landedAtClient(page);
    assert.equal((await linkOf(upstream.id, 'coded-upstream'))?.user_id, local.id);
    assert.deepEqual(await lastAmr(local.id), ['fed', 'otp', 'mfa']);
    await page.close();
  });

  test('never linked on an unverified e-mail: an upstream that does not assert the address gets its own account, not the local one', async () => {
    const victim = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'victim@example.org', email_verified: true } });
    w.upstream.next = { sub: 'attacker', email: 'victim@example.org', email_verified: false };
    const page = await freshPage();
    await page.click('text=Continue with Upstream');
    await landedAtClient(page);
    const link = await linkOf(upstream.id, 'attacker');
    assert.ok(link);
    assert.notEqual(link.user_id, victim.id);
    await page.close();
  });

  test('never linked on an unverified e-mail: a local account whose address was never confirmed is not offered for linking', async () => {
    const preRegistered = await createUser(w.t.core.db, w.t.core.clock, {
      password: PASSWORD,
      profile: { email: 'squatted@example.org', email_verified: false },
    });
    const strict = await w.addProvider({ slug: 'other', name: 'Other', provision: false });
    w.upstream.next = { sub: 'real-owner', email: 'squatted@example.org', email_verified: true };
    const page = await freshPage();
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().includes('/federation/other/callback')), page.click('text=Continue with Other')]);
    assert.equal(response.status(), 403);
    assert.match(await pageText(page), /No account/);
    assert.equal(await linkOf(strict.id, 'real-owner'), undefined);
    assert.equal((await w.t.core.db.selectFrom('federated_identities').select('subject').where('user_id', '=', preRegistered.id).execute()).length, 0);
    await page.close();
  });

  test('domain routing: an e-mail typed in the username field whose domain a provider claims goes to that provider', async () => {
    w.upstream.next = { sub: 'acme-employee', email: 'employee@acme.example', email_verified: true };
    const page = await freshPage();
    await page.fill('input[name="username"]', 'employee@acme.example');
    await page.click('form[action$="/login"] button[type="submit"]');
    await landedAtClient(page);
    assert.ok(await linkOf(acme.id, 'acme-employee'), 'signed in through Acme SSO');
    await page.close();
  });

  test('login_hint=idp:SLUG skips the choice', async () => {
    w.upstream.next = { sub: 'hinted', email: 'hinted@example.org', email_verified: true };
    const page = await freshPage(client, { login_hint: 'idp:upstream' });
    await landedAtClient(page);
    assert.ok(await linkOf(upstream.id, 'hinted'));
    await page.close();
  });

  test('upstream error: an upstream that refuses shows a page (not a 500), and the sign-in can go on another way', async () => {
    w.upstream.next = 'deny';
    const page = await freshPage();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/federation/upstream/callback')),
      page.click('text=Continue with Upstream'),
    ]);
    assert.equal(response.status(), 400);
    assert.match(await pageText(page), /Upstream did not sign you in/);
    await page.click('text=Back to sign-in');
    await page.waitForSelector('input[name="username"]');
    await page.close();
  });

  test('upstream unreachable: a provider whose token endpoint does not answer shows a page (not a 500)', async () => {
    await w.addProvider({ slug: 'broken', name: 'Broken', tokenEndpoint: 'http://127.0.0.1:9/token', provision: true });
    w.upstream.next = { sub: 'any' };
    const page = await freshPage();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/federation/broken/callback')),
      page.click('text=Continue with Broken'),
    ]);
    assert.ok([502, 400].includes(response.status()), `status ${response.status()}`);
    assert.doesNotMatch(await pageText(page), /Internal Server Error/);
    await page.close();
  });

  test("the local account's own second factor still applies after an upstream sign-in, and the amr names fed, not pwd", async () => {
    const local = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'two.step@example.org', email_verified: true } });
    const { secret } = await enrollTotp(w.t, local);
    await w.t.core.db.insertInto('federated_identities').values({ provider_id: upstream.id, subject: 'two-step', user_id: local.id, email: null }).execute();
    w.upstream.next = { sub: 'two-step' };
    const page = await freshPage();
    await page.click('text=Continue with Upstream');
    await page.waitForSelector('input[name="otp"]');
    assert.equal(page.url().startsWith(w.clientPage.redirectUri), false, 'not signed in by the upstream alone');
    // The next time step: the enrollment used up the current one (a code is accepted one step either side).
    await page.fill('input[name="otp"]', totpAt(secret, Date.now() + 30_000));
    await page.click('form[action$="/second-factor"] button[type="submit"]');
    await landedAtClient(page);
    assert.deepEqual(await lastAmr(local.id), ['fed', 'otp', 'mfa']);
    await page.close();
  });

  /**
   * Starts the upstream leg in the browser but holds the way out (the 303 to the upstream is fetched, its
   * cookie kept, the page shown a stub), then walks the upstream's redirects itself: the callback URL the
   * upstream sends back, not yet visited.
   */
  async function heldCallback(page: Page, button: string): Promise<string> {
    let location: string | undefined;
    await page.route('**/interaction/*/federation', async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      location = response.headers().location;
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'held', headers: { 'set-cookie': response.headers()['set-cookie'] ?? '' } });
    });
    await page.click(`text=${button}`);
    for (let i = 0; i < 50 && !location; i++) await page.waitForTimeout(50);
    assert.ok(location, 'the way out to the upstream');
    return (await w.upstream.follow(location)).href;
  }

  test('state tampering: a callback with another state is refused, and the pending request is then spent', async () => {
    w.upstream.next = { sub: 'tamper', email: 'tamper@example.org', email_verified: true };
    const page = await freshPage();
    const callback = await heldCallback(page, 'Continue with Upstream');
    const tampered = new URL(callback);
    tampered.searchParams.set('state', 'forged-state');
    const federationCookie = (await w.chromium.context.cookies()).filter((c) => c.name === 'gatehouse_federation');
    assert.equal(federationCookie.length, 1);
    const refused = await page.goto(tampered.href);
    assert.equal(refused?.status(), 400);
    assert.match(await pageText(page), /cannot continue/);
    // The genuine answer after a refused one, even with the federation cookie put back: the pending request
    // was taken by the first arrival (single use), nothing is left to complete.
    await w.chromium.context.addCookies(federationCookie);
    const replay = await page.goto(callback);
    assert.equal(replay?.status(), 400);
    assert.equal(await linkOf(upstream.id, 'tamper'), undefined);
    await page.close();
  });

  test('the pending request is bound to the browser: its callback in another browser completes nothing, in this one it signs in', async () => {
    w.upstream.next = { sub: 'bound', email: 'bound@example.org', email_verified: true };
    const page = await freshPage();
    const callback = await heldCallback(page, 'Continue with Upstream');
    const elsewhere = await fetch(callback, { redirect: 'manual' });
    assert.equal(elsewhere.status, 400);
    assert.equal(await linkOf(upstream.id, 'bound'), undefined);
    await page.goto(callback);
    await landedAtClient(page);
    assert.ok(await linkOf(upstream.id, 'bound'));
    await page.close();
  });
});
