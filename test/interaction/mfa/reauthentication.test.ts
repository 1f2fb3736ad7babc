// Re-authentication with a second factor (OIDC Core 3.1.2.1; docs/second-factors.md): `prompt=login` and an
// elapsed `max_age` redo the whole sign-in — password AND second factor — and the password alone issues no
// code; the new tokens carry the new auth_time. A password-only session meeting acr_values of the MFA class
// is stepped up with the second factor only (no password field).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { manualClock } from '../../../src/clock.js';
import { ACR_MFA } from '../../../src/oauth/issued-tokens/authentication-context.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient, postToken, REDIRECT_URI, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { totpAt } from '../../helpers/totp.js';
import { authorizeQuery, openInteraction, submitLogin } from '../browserless.js';
import { enrollTotp, signInWithTotp } from './enroll.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { SIGN_IN, createUser } from '../../helpers/users.js';
import { RFC7636 } from '../../helpers/pkce.js';
import { clientAnswer } from '../../helpers/client-answer.js';

describe('prompt=login and max_age with a second factor', () => {
  let t: TestApp;
  let app: ClientFixture;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock, env: {} });
    app = await createClient(t.core.db, t.core.clock);
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

  async function idTokenOf(response: Response) {
    const location = (await clientAnswer(response)).href;
    assert.ok(location.startsWith(`${REDIRECT_URI}?code=`), `expected the code at the client, got ${response.status} ${location}`);
    const code = new URL(location).searchParams.get('code')!;
    const { status, body } = await postToken(t.url, app, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: RFC7636.verifier,
    });
    assert.equal(status, 200, JSON.stringify(body));
    return decodeJwt(body.id_token as string);
  }

  /** An account with TOTP, signed in with password and code; returns the signed-in browser and the secret. */
  async function signedInWithTotp() {
    const { user, secret, browser, response } = await signInWithTotp(t, clock, app.client.id);
    return { user, secret, browser, first: await idTokenOf(response) };
  }

  /** The sign-in again under `extra`: password page, then (only then) the second-factor page, then the code. */
  async function reauthenticate(extra: Record<string, string>) {
    const { user, secret, browser, first } = await signedInWithTotp();
    clock.advance(120_000);
    const { html, form, path } = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI, extra));
    assert.match(html, /name="password"/, 'the password is asked again');
    const before = await codesIssued();
    const afterPassword = await submitLogin(browser, form, user.username);
    assert.equal(afterPassword.headers.get('location'), path, 'the password alone goes back to the interaction, not to the client');
    assert.equal(await codesIssued(), before, 'no code for the password alone');
    const secondPage = await (await browser.get(path)).text();
    assert.match(secondPage, /name="otp"/, 'the second factor is asked again');
    const second = parseForm(secondPage);
    const idToken = await idTokenOf(await browser.post(second.action, { ...second.hidden, otp: totpAt(secret, clock.now()) }));
    assert.deepEqual(idToken.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(idToken.acr, ACR_MFA);
    assert.ok((idToken.auth_time as number) > (first.auth_time as number), 'auth_time is the new sign-in');
  }

  test('prompt=login asks for the password and then the second factor again; the password alone issues no code', async () => {
    await reauthenticate({ prompt: 'login' });
  });

  test('an elapsed max_age asks for the password and then the second factor again; the password alone issues no code', async () => {
    await reauthenticate({ max_age: '60' });
  });

  test('a max_age not yet elapsed asks for nothing: the session that signed in with both factors answers at once', async () => {
    const { browser } = await signedInWithTotp();
    clock.advance(10_000);
    const answer = await browser.get(authorizeQuery(app.client.id, REDIRECT_URI, { max_age: '600' }));
    assert.deepEqual((await idTokenOf(answer)).amr, ['pwd', 'otp', 'mfa']);
  });

  test('a password-only session meeting acr_values of the MFA class is stepped up: the second factor only, no password field', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const browser = new Browser(t.url);
    const login = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI));
    const plain = await idTokenOf(await submitLogin(browser, login.form, user.username));
    assert.deepEqual(plain.amr, ['pwd']);
    const { secret } = await enrollTotp(t, user);
    clock.advance(30_000);
    const { html, form } = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI, { acr_values: ACR_MFA }));
    assert.match(html, /name="otp"/);
    assert.doesNotMatch(html, /name="password"/);
    const stepped = await idTokenOf(await browser.post(form.action, { ...form.hidden, otp: totpAt(secret, clock.now()) }));
    assert.equal(stepped.acr, ACR_MFA);
    assert.deepEqual(stepped.amr, ['pwd', 'otp', 'mfa']);
    // OIDC Core 2: auth_time is when the user last actively authenticated — here, with the second factor.
    assert.ok((stepped.auth_time as number) > (plain.auth_time as number));
  });
});
