// S1 (docs/security/account-factors.md): the rules around binding and removing second factors on /account.
// Each test is named after its rule; the session is made stale by moving the clock past REAUTH_MAX_AGE.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { ACR_MFA } from '../../src/oauth/issued-tokens/authentication-context.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { addSoftPasskey, newSoftPasskey } from '../helpers/soft-passkey.js';
import { secretOfUri, totpAt } from '../helpers/totp.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';
import { authorizeQuery } from '../interaction/browserless.js';
import { AccountBrowser } from './account-browser.js';

const STALE_MS = 301_000;

describe('binding and removing second factors on /account', () => {
  let t: TestApp;
  let client: Client;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock });
    client = (await createClient(t.core.db, t.core.clock, { skipConsent: true })).client;
  });
  after(() => t.close());

  async function signedIn() {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const browser = new AccountBrowser(t);
    await browser.password(user.username);
    return { user, browser, csrf: (await browser.page()).csrf };
  }

  async function startTotp(browser: AccountBrowser, csrf: string): Promise<string> {
    assert.equal((await browser.browser.post('/account/totp', { csrf })).headers.get('location'), '/account');
    const uri = /<code id="totp-uri">([^<]+)<\/code>/.exec(await (await browser.browser.get('/account')).text())![1]!;
    return secretOfUri(uri.replace(/&amp;/g, '&'));
  }

  test('binding a factor needs a fresh proof: a stale session is asked to confirm it is them (TOTP, passkey), and the password makes it fresh', async () => {
    const { user, browser, csrf } = await signedIn();
    clock.advance(STALE_MS);
    const refused = await browser.browser.post('/account/totp', { csrf });
    assert.equal(refused.headers.get('location'), '/account?error=reauth');
    const prompt = await (await browser.browser.get('/account?error=reauth')).text();
    assert.match(prompt, /Confirm it is you/);
    assert.match(prompt, /action="\/account\/reauth"/);
    assert.doesNotMatch(await (await browser.browser.get('/account')).text(), /totp-uri/, 'no enrollment was started');
    const passkeyOptions = await browser.postJson('/account/passkeys/options', { csrf });
    assert.equal(passkeyOptions.status, 403);
    assert.equal(
      await t.core.db
        .selectFrom('webauthn_challenges')
        .select('challenge')
        .where('bound_to', 'like', 'account:%')
        .where('user_id', '=', user.id)
        .executeTakeFirst(),
      undefined,
    );

    const wrong = await browser.browser.post('/account/reauth', { csrf, password: 'not it' });
    assert.equal(wrong.headers.get('location'), '/account?error=reauth_failed');
    assert.equal((await browser.browser.post('/account/totp', { csrf })).headers.get('location'), '/account?error=reauth', 'a wrong password proves nothing');
    assert.equal((await browser.browser.post('/account/reauth', { csrf, password: PASSWORD })).headers.get('location'), '/account?done=reauth');
    const secret = await startTotp(browser, csrf);
    assert.equal((await browser.browser.post('/account/totp/confirm', { csrf, otp: totpAt(secret, clock.now()) })).status, 200);
    const key = newSoftPasskey(user.id);
    const options = (await (await browser.postJson('/account/passkeys/options', { csrf })).json()) as { challenge: string };
    assert.equal(
      (await browser.postJson('/account/passkeys/verify', { csrf, name: 'Mine', response: key.register(options.challenge, t.config.ISSUER) })).status,
      200,
    );
  });

  test('regenerating recovery codes and removing a factor need a fresh proof; an existing factor is one', async () => {
    const { browser, csrf } = await signedIn();
    const secret = await startTotp(browser, csrf);
    await browser.browser.post('/account/totp/confirm', { csrf, otp: totpAt(secret, clock.now()) });
    clock.advance(STALE_MS);
    assert.equal((await browser.browser.post('/account/recovery-codes', { csrf })).headers.get('location'), '/account?error=reauth');
    assert.equal((await browser.browser.post('/account/totp/remove', { csrf })).headers.get('location'), '/account?error=reauth');
    assert.match(await (await browser.browser.get('/account')).text(), /An authenticator app is set up/);
    assert.equal((await browser.browser.post('/account/reauth', { csrf, otp: totpAt(secret, clock.now()) })).headers.get('location'), '/account?done=reauth');
    assert.equal((await browser.browser.post('/account/recovery-codes', { csrf })).status, 200);
    assert.equal((await browser.browser.post('/account/totp/remove', { csrf })).headers.get('location'), '/account?done=totp_removed');
  });

  test('binding a factor never raises the acr/amr of the session that bound it: prompt=none with acr_values mfa gets no code on the old session', async () => {
    const { browser, csrf } = await signedIn();
    const secret = await startTotp(browser, csrf);
    assert.equal((await browser.browser.post('/account/totp/confirm', { csrf, otp: totpAt(secret, clock.now()) })).status, 200);
    await browser.page(); // the account page stays open to the session that bound the factor
    const answer = await browser.browser.get(authorizeQuery(client.id, REDIRECT_URI, { prompt: 'none', acr_values: ACR_MFA }));
    const location = new URL(answer.headers.get('location')!);
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
    assert.equal(location.searchParams.get('code'), null, 'no code: the session never proved a second factor');
    assert.ok(location.searchParams.get('error'), 'an error instead');
    const amr = await t.core.db.selectFrom('session_authentications').select('amr').where('bound_factor', '=', true).execute();
    assert.ok(amr.length > 0 && amr.every((r) => !r.amr.includes('mfa')), 'the bound session kept its password-only amr');
  });

  test('a password change lists the account’s factors and lets the user remove an unknown one at once (the password was just proven)', async () => {
    const { user } = await signedIn();
    const planted = await addSoftPasskey(t.core.db, t.core.clock, user.id);
    clock.advance(STALE_MS);
    // A password-only session of an account that now has a passkey is stepped up first: sign in again with it.
    const fresh = new AccountBrowser(t);
    await fresh.password(user.username);
    assert.equal((await fresh.passkey(planted)).status, 200);
    const page = await fresh.page();
    clock.advance(STALE_MS);
    assert.equal(
      (await fresh.browser.post('/account/passkeys/remove', { csrf: page.csrf, credential: planted.credentialId })).headers.get('location'),
      '/account?error=reauth',
    );
    const changed = await fresh.browser.post('/account/password', { csrf: page.csrf, current_password: PASSWORD, new_password: 'a new password' });
    assert.equal(changed.headers.get('location'), '/account?done=password');
    const review = await (await fresh.browser.get('/account?done=password')).text();
    assert.match(review, /id="factor-review"/);
    assert.match(review, /Passkey <strong>Soft key<\/strong>/);
    const removed = await fresh.browser.post('/account/passkeys/remove', { csrf: page.csrf, credential: planted.credentialId });
    assert.equal(removed.headers.get('location'), '/account?done=passkey_removed');
  });
});
