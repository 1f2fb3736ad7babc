// The second factor cannot be skipped (docs/second-factors.md), beyond what second-factor-login.test.ts
// covers: a password-only session being stepped up cannot post straight to the consent step, nor get a code
// from /authorize while the wait is pending; a wait for one interaction's second factor cannot be completed
// at another interaction; and a second-factor form posted from another site is refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import { ACR_MFA } from '../../../src/oauth/issued-tokens/authentication-context.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient, REDIRECT_URI, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { totpAt } from '../../helpers/totp.js';
import { authorizeQuery, openInteraction, submitLogin } from '../browserless.js';
import { enrollTotp } from './enroll.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { SIGN_IN, createUser } from '../../helpers/users.js';
import { clientAnswer } from '../../helpers/client-answer.js';

describe('a second factor cannot be skipped', () => {
  let t: TestApp;
  let consentApp: ClientFixture;
  let firstParty: ClientFixture;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock, env: {} });
    consentApp = await createClient(t.core.db, t.core.clock, { skipConsent: false });
    firstParty = await createClient(t.core.db, t.core.clock);
  });
  after(() => t.close());

  const codesIssued = async () =>
    Number(
      (
        await t.core.db
          .selectFrom('authorization_codes')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const atClient = async (response: Response) => (await clientAnswer(response)).href.startsWith(REDIRECT_URI);

  test('a password-only session being stepped up (acr_values) cannot post straight to the consent step: no code, the page still asks for the code', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const browser = new Browser(t.url);
    const login = await openInteraction(browser, authorizeQuery(firstParty.client.id, REDIRECT_URI));
    assert.ok(await atClient(await submitLogin(browser, login.form, user.username)), 'signed in with the password');
    await enrollTotp(t, user);
    const { form, path } = await openInteraction(browser, authorizeQuery(consentApp.client.id, REDIRECT_URI, { acr_values: ACR_MFA }));
    const before = await codesIssued();
    const skipped = await browser.post(`${path}/consent`, { csrf: form.hidden.csrf!, decision: 'allow' });
    assert.equal(skipped.headers.get('location'), path, 'back to the interaction, not to the client');
    assert.equal(await codesIssued(), before);
    assert.match(await (await browser.get(path)).text(), /name="otp"/);
  });

  test('while the second factor is pending, /authorize again issues no code: the password alone signed nothing in', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    await enrollTotp(t, user);
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(firstParty.client.id, REDIRECT_URI));
    assert.equal((await submitLogin(browser, form, user.username)).headers.get('location'), path);
    const before = await codesIssued();
    const again = await browser.get(authorizeQuery(firstParty.client.id, REDIRECT_URI));
    assert.match(again.headers.get('location') ?? '', /^\/interaction\//, 'an interaction, not the client');
    assert.equal(await codesIssued(), before);
  });

  test('a second factor awaited for one interaction cannot be completed at another one', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { secret } = await enrollTotp(t, user);
    clock.advance(30_000);
    const browser = new Browser(t.url);
    const first = await openInteraction(browser, authorizeQuery(firstParty.client.id, REDIRECT_URI, { state: 'a' }));
    await submitLogin(browser, first.form, user.username);
    const other = await openInteraction(browser, authorizeQuery(firstParty.client.id, REDIRECT_URI, { state: 'b' }));
    assert.notEqual(other.path, first.path);
    const answer = await browser.post(`${other.path}/second-factor`, { csrf: other.form.hidden.csrf!, otp: totpAt(secret, clock.now()) });
    assert.equal(answer.headers.get('location'), other.path, 'nothing signed in at the other interaction');
    assert.match(await (await browser.get(other.path)).text(), /name="password"/, 'the other interaction still needs its own sign-in');
  });

  test('a second-factor form posted from another site is refused with 403, before the code is looked at', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { secret } = await enrollTotp(t, user);
    clock.advance(30_000);
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(firstParty.client.id, REDIRECT_URI));
    await submitLogin(browser, form, user.username);
    const second = parseForm(await (await browser.get(path)).text());
    const code = totpAt(secret, clock.now());
    const refused = await browser.post(second.action, { ...second.hidden, otp: code }, { origin: 'https://evil.example' });
    assert.equal(refused.status, 403);
    assert.ok(await atClient(await browser.post(second.action, { ...second.hidden, otp: code })), 'the code was not spent by the refused post');
  });
});
