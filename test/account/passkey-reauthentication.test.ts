// S1 re-authentication with a passkey (docs/security/account-factors.md): the "confirm it is you" prompt of
// /account accepts one of the account's own passkeys as well as the password, and names only what the
// account has. Software passkeys (test/helpers/soft-passkey.ts); each test is named after its rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addSoftPasskey, type SoftPasskey } from '../helpers/soft-passkey.js';
import { SIGN_IN, createUser } from '../helpers/users.js';
import { AccountBrowser } from './account-browser.js';

const STALE_MS = 301_000;

describe('re-authentication on /account with a passkey', () => {
  let t: TestApp;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock });
  });
  after(() => t.close());

  /** A user with a passkey, signed in with password and passkey, whose proof is then stale. */
  async function staleWithPasskey() {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const key = await addSoftPasskey(t.core.db, t.core.clock, user.id);
    const browser = new AccountBrowser(t);
    await browser.password(user.username);
    assert.equal((await browser.passkey(key)).status, 200);
    const { csrf } = await browser.page();
    clock.advance(STALE_MS);
    const credentialId = key.credentialId;
    return { user, key, browser, csrf, credentialId };
  }

  async function reauthWith(browser: AccountBrowser, csrf: string, key: SoftPasskey): Promise<Response> {
    const options = await browser.postJson('/account/reauth/passkey/options', { csrf });
    assert.equal(options.status, 200, await options.clone().text());
    const { challenge } = (await options.json()) as { challenge: string };
    return browser.postJson('/account/reauth/passkey/verify', { csrf, response: key.assert(challenge, t.config.ISSUER) });
  }

  /** The "confirm it is you" part of the page: the alert and the section, up to the password form. */
  const prompt = (html: string) => html.slice(html.indexOf('<p class="error"'), html.indexOf('<h2>Password</h2>'));

  test('re-authentication accepts one of the account’s passkeys: a stale session confirms with it, then may remove a factor', async () => {
    const { browser, csrf, key, credentialId } = await staleWithPasskey();
    const refused = await browser.browser.post('/account/passkeys/remove', { csrf, credential: credentialId });
    assert.equal(refused.headers.get('location'), '/account?error=reauth');
    const confirmed = await reauthWith(browser, csrf, key);
    assert.equal(confirmed.status, 200, await confirmed.clone().text());
    assert.deepEqual(await confirmed.json(), { redirect: '/account?done=reauth' });
    const removed = await browser.browser.post('/account/passkeys/remove', { csrf, credential: credentialId });
    assert.equal(removed.headers.get('location'), '/account?done=passkey_removed');
  });

  test('passkey re-authentication accepts only the account’s own passkeys: another account’s is refused (login.failed) and the proof stays stale', async () => {
    const { user, browser, csrf, credentialId } = await staleWithPasskey();
    const stranger = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const strangersKey = await addSoftPasskey(t.core.db, t.core.clock, stranger.id);
    const refused = await reauthWith(browser, csrf, strangersKey);
    assert.equal(refused.status, 400);
    const failed = await t.core.db.selectFrom('audit_events').select('details').where('type', '=', 'login.failed').where('subject', '=', user.id).execute();
    assert.ok(
      failed.some((row) => (row.details as Record<string, string>).method === 'passkey'),
      'the refusal is a login.failed of this account',
    );
    const still = await browser.browser.post('/account/passkeys/remove', { csrf, credential: credentialId });
    assert.equal(still.headers.get('location'), '/account?error=reauth', 'nothing was proven');
  });

  test('the re-authentication prompt names only what the account has: an authenticator code only with an authenticator app, a passkey only with a passkey', async () => {
    const plain = new AccountBrowser(t);
    await plain.password((await createUser(t.core.db, t.core.clock, SIGN_IN)).username);
    const passwordOnly = prompt(await (await plain.browser.get('/account?error=reauth')).text());
    assert.match(passwordOnly, /Confirm it is you/);
    assert.doesNotMatch(passwordOnly, /authenticator|passkey/i, 'a password-only account is asked for its password only');

    const { browser } = await staleWithPasskey();
    const withPasskey = prompt(await (await browser.browser.get('/account?error=reauth')).text());
    assert.match(withPasskey, /one of your passkeys/);
    assert.match(withPasskey, /data-options-url="\/account\/reauth\/passkey\/options"/);
    assert.doesNotMatch(withPasskey, /authenticator/i, 'no authenticator app, no code field');
  });
});
