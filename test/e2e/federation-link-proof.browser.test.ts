// Proving the account on the federation's link confirmation page (docs/federation.md, "Proving the account";
// docs/rate-limits.md), in Chromium against a REAL upstream (node-oidc-provider): one of the account's
// passkeys is a proof (Chrome's virtual authenticator, so the app runs under http://localhost), and the
// guesses of whoever controls an upstream that asserts the owner's verified address cost the owner nothing —
// a link request allows three proofs, and codes typed there are charged to their own count, never to the
// count the owner's sign-ins use. Each test is named after its rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CDPSession, Page } from 'playwright-core';
import { authorizeQuery } from '../interaction/browserless.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { typeInto } from '../helpers/chromium.js';
import { createUser, PASSWORD } from '../helpers/users.js';
import { totpAt } from '../helpers/totp.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import { LINK_PROOF_ATTEMPTS } from '../../src/interaction/federation/link-confirmation.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { pageText, startFederationWorld, type FederationWorld } from './federation-world.js';

describe('proving the account on the link confirmation page', () => {
  let w: FederationWorld;
  let client: Client;
  let upstream: IdentityProvider;

  before(async () => {
    w = await startFederationWorld({ host: 'localhost' });
    upstream = await w.addProvider({ slug: 'upstream', name: 'Upstream', provision: false });
    client = (await createClient(w.t.core.db, w.t.core.clock, { name: 'Federated Shop', redirectUris: [w.clientPage.redirectUri] })).client;
  });
  after(async () => {
    await w?.close();
  });

  /** A page at the confirmation page for `local`, after an upstream sign-in asserting its address as verified. */
  async function atLinkPage(email: string, subject: string, page?: Page): Promise<Page> {
    if (!page) await w.chromium.context.clearCookies();
    const at = page ?? (await w.chromium.context.newPage());
    w.upstream.next = { sub: subject, email, email_verified: true };
    await at.goto(w.t.url + authorizeQuery(client.id, w.clientPage.redirectUri, { scope: 'openid email' }));
    await at.click('text=Continue with Upstream');
    await at.waitForURL(/\/link$/);
    return at;
  }

  const linkOf = (subject: string) =>
    w.t.core.db.selectFrom('federated_identities').selectAll().where('provider_id', '=', upstream.id).where('subject', '=', subject).executeTakeFirst();
  const landedAtClient = (page: Page) => page.waitForURL((url) => url.href.startsWith(w.clientPage.redirectUri));
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
  const count = async (table: 'second_factor_failures' | 'link_proof_failures', userId: string) =>
    (await w.t.core.db.selectFrom(table).select('consecutive').where('user_id', '=', userId).executeTakeFirst())?.consecutive ?? 0;

  /** Posts the confirmation form with `fields` as this page's browser (its cookies, its CSRF token). */
  async function postProof(page: Page, fields: Record<string, string>) {
    const csrf = await page.locator('form[action$="/link"] input[name="csrf"]').inputValue();
    return page.request.post(`${page.url().replace(/\?.*$/, '')}`, { form: { csrf, ...fields }, headers: { origin: w.t.url }, maxRedirects: 0 });
  }

  test("linking after proof by a passkey: one of the account's passkeys on the confirmation page links, and with the upstream makes two factors (amr fed hwk mfa)", async () => {
    const local = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'keyed@example.org', email_verified: true } });
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    const cdp: CDPSession = await w.chromium.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    // The owner registers a passkey on /account, then leaves.
    await page.goto(`${w.t.url}/account`);
    await typeInto(page, 'Username', local.username);
    await typeInto(page, 'Password', PASSWORD, true);
    await page.waitForSelector('h1:text("Your account")');
    await typeInto(page, 'Name of the new passkey', 'Laptop', true);
    await page.waitForSelector('p.notice:text("The passkey was added.")');
    await w.chromium.context.clearCookies();

    await atLinkPage('keyed@example.org', 'keyed-upstream', page);
    assert.equal(await linkOf('keyed-upstream'), undefined, 'nothing is linked before the proof');
    await page.getByRole('button', { name: 'Link with a passkey of your account here' }).press('Enter');
    await landedAtClient(page);
    assert.equal((await linkOf('keyed-upstream'))?.user_id, local.id);
    assert.deepEqual(await lastAmr(local.id), ['fed', 'hwk', 'mfa']);
    const linked = await w.t.core.db
      .selectFrom('audit_events')
      .select('details')
      .where('subject', '=', local.id)
      .where('type', '=', 'account.identity_linked')
      .executeTakeFirstOrThrow();
    assert.equal((linked.details as Record<string, string>).how, 'proved_passkey');
    await page.close();
  });

  test('a passkey-only account is offered its passkey as the proof (no password field)', async () => {
    const local = await createUser(w.t.core.db, w.t.core.clock, { profile: { email: 'keyonly@example.org', email_verified: true } });
    await w.t.core.db.updateTable('users').set({ password_hash: '!no-password' }).where('id', '=', local.id).execute();
    await w.t.core.db
      .insertInto('passkey_credentials')
      .values({
        credential_id: 'a2V5b25seQ',
        user_id: local.id,
        public_key: 'AA',
        sign_count: 0,
        transports: [],
        device_type: 'singleDevice',
        name: 'Key',
        created_at: new Date(),
        last_used_at: null,
      })
      .execute();
    const page = await atLinkPage('keyonly@example.org', 'keyonly-upstream');
    assert.equal(await page.locator('input[name="password"]').count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Link with a passkey of your account here' }).count(), 1);
    await page.close();
  });

  test("the link page never spends the account's second-factor budget: wrong codes typed there are charged to the link-proof count, and the owner's sign-in count is untouched", async () => {
    const local = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'coded@example.org', email_verified: true } });
    await enrollTotp(w.t, local);
    const page = await atLinkPage('coded@example.org', 'attacker-1');
    for (let i = 1; i < LINK_PROOF_ATTEMPTS; i++) {
      assert.equal((await postProof(page, { otp: '000000' })).headers().location, `${new URL(page.url()).pathname}?failed=1`);
    }
    assert.equal(await count('second_factor_failures', local.id), 0, "the account's own count is untouched");
    assert.equal(await count('link_proof_failures', local.id), LINK_PROOF_ATTEMPTS - 1);
    assert.equal(await linkOf('attacker-1'), undefined);
    await page.close();
  });

  test('a link request ends after three refused proofs: then even the right password links nothing, and the sign-in must start again', async () => {
    await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'limited@example.org', email_verified: true } });
    const page = await atLinkPage('limited@example.org', 'limited-upstream');
    const answers = [];
    for (let i = 0; i < LINK_PROOF_ATTEMPTS; i++) answers.push(await postProof(page, { password: 'wrong password' }));
    assert.deepEqual(
      answers.map((r) => r.status()),
      [303, 303, 429],
    );
    assert.match(await answers[2]!.text(), /Too many attempts/);
    const right = await postProof(page, { password: PASSWORD });
    assert.notEqual(right.status(), 200);
    assert.doesNotMatch(right.headers().location ?? '', /^http:\/\/127/, 'not back at the client');
    assert.equal(await linkOf('limited-upstream'), undefined);
    await page.reload();
    assert.doesNotMatch(page.url(), /\/link/, 'the confirmation page is gone');
    await page.close();
  });

  test("a link request's proofs hold under parallel requests: of many wrong passwords sent at once, only three are looked at", async () => {
    const local = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'parallel@example.org', email_verified: true } });
    const page = await atLinkPage('parallel@example.org', 'parallel-upstream');
    const answers = await Promise.all(Array.from({ length: 6 }, () => postProof(page, { password: 'wrong password' })));
    assert.equal(answers.filter((r) => r.status() === 303 && /failed=1/.test(r.headers().location ?? '')).length, LINK_PROOF_ATTEMPTS - 1);
    const refused = await w.t.core.db.selectFrom('audit_events').select('id').where('subject', '=', local.id).where('type', '=', 'login.failed').execute();
    assert.equal(refused.length, LINK_PROOF_ATTEMPTS, 'no more proofs than the request allows were looked at');
    await page.close();
  });

  test("the link page's code count is account-wide and outlives link requests: once it is stopped a right code links nothing there, while the password still links and the owner's codes still sign in", async () => {
    const local = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'stopped@example.org', email_verified: true } });
    const { secret } = await enrollTotp(w.t, local);
    // 100 wrong codes over many link requests (the stop of docs/rate-limits.md).
    await w.t.core.db.insertInto('link_proof_failures').values({ user_id: local.id, consecutive: 100, last_failure_at: new Date() }).execute();
    const page = await atLinkPage('stopped@example.org', 'stopped-upstream');
    await page.fill('input[name="otp"]', totpAt(secret, Date.now() + 30_000));
    await page.click('button[type="submit"]');
    await page.waitForURL(/failed=codes$/);
    assert.match(await pageText(page), /Too many wrong codes have been typed here/);
    assert.equal(await linkOf('stopped-upstream'), undefined);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('button[type="submit"]');
    // The password is the first factor: the account's own code follows, and its sign-in count accepts it.
    await page.waitForSelector('input[name="otp"]');
    await page.fill('input[name="otp"]', totpAt(secret, Date.now() + 30_000));
    await page.click('form[action$="/second-factor"] button[type="submit"]');
    await landedAtClient(page);
    assert.equal((await linkOf('stopped-upstream'))?.user_id, local.id);
    assert.deepEqual(await lastAmr(local.id), ['fed', 'pwd', 'otp', 'mfa']);
    await page.close();
  });
});
