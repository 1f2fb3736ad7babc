// Policy and step-up (docs/second-factors.md): an account with a second factor always completes it; a
// client can require one (`--require-mfa`); acr_values (or an essential acr claim) asks for one; a session
// that lacks it is stepped up — second factor only, no password — rather than refused. id_tokens and
// introspection carry amr (RFC 8176) and acr; discovery lists acr_values_supported.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { manualClock } from '../../../src/clock.js';
import { ACR_MFA, ACR_PASSWORD } from '../../../src/oauth/issued-tokens/authentication-context.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient, postToken, REDIRECT_URI, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { basicAuth, postForm } from '../../oauth/fixtures.js';
import { totpAt } from '../../helpers/totp.js';
import { authorizeQuery, openInteraction, submitLogin } from '../browserless.js';
import { enrollTotp, signInWithTotp } from './enroll.js';
import { Browser } from '../../helpers/browser.js';
import { SIGN_IN, createUser } from '../../helpers/users.js';
import { RFC7636 } from '../../helpers/pkce.js';
import { clientAnswer } from '../../helpers/client-answer.js';

describe('second-factor policy, step-up, amr and acr', () => {
  let t: TestApp;
  let app: ClientFixture;
  let strict: ClientFixture;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock, env: {} });
    app = await createClient(t.core.db, t.core.clock, { type: 'confidential' });
    strict = await createClient(t.core.db, t.core.clock, { requireMfa: true });
  });
  after(() => t.close());

  const toClient = async (response: Response) => {
    const location = (await clientAnswer(response)).href;
    assert.ok(location.startsWith(`${REDIRECT_URI}?code=`), `expected the code at the client, got ${response.status} ${location}`);
    return new URL(location).searchParams.get('code')!;
  };

  async function tokensFor(code: string, fixture = app) {
    const { status, body } = await postToken(t.url, fixture, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: RFC7636.verifier,
    });
    assert.equal(status, 200, JSON.stringify(body));
    return { idToken: decodeJwt(body.id_token as string), accessToken: body.access_token as string };
  }

  /** Password sign-in; returns the browser (signed in) and the code. */
  async function passwordOnly(username: string) {
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI));
    return { browser, code: await toClient(await submitLogin(browser, form, username)) };
  }

  test('discovery lists acr_values_supported and the amr and acr claims', async () => {
    const metadata = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<string, string[]>;
    assert.deepEqual(metadata.acr_values_supported, [ACR_PASSWORD, ACR_MFA]);
    assert.ok(metadata.claims_supported!.includes('amr') && metadata.claims_supported!.includes('acr'));
  });

  test('a password sign-in gives amr ["pwd"] and the password acr; with a TOTP code amr ["pwd","otp","mfa"] and the mfa acr, in the id_token and in introspection', async () => {
    const plain = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { idToken } = await tokensFor((await passwordOnly(plain.username)).code);
    assert.deepEqual(idToken.amr, ['pwd']);
    assert.equal(idToken.acr, ACR_PASSWORD);

    const tokens = await tokensFor(await toClient((await signInWithTotp(t, clock, app.client.id)).response));
    assert.deepEqual(tokens.idToken.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(tokens.idToken.acr, ACR_MFA);
    const introspection = await postForm(`${t.url}/introspect`, { token: tokens.accessToken }, { authorization: basicAuth(app.client.id, app.secret!) });
    const body = introspection.body;
    assert.equal(body.active, true);
    assert.deepEqual(body.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(body.acr, ACR_MFA);
  });

  test('acr_values asking for a second factor steps a password-only session up: only the second factor is asked, no new password', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { browser } = await passwordOnly(user.username);
    const { secret } = await enrollTotp(t, user);
    clock.advance(30_000);
    const { html, form } = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI, { acr_values: ACR_MFA }));
    assert.match(html, /name="otp"/);
    assert.doesNotMatch(html, /name="password"/);
    const { idToken } = await tokensFor(await toClient(await browser.post(form.action, { ...form.hidden, otp: totpAt(secret, clock.now()) })));
    assert.equal(idToken.acr, ACR_MFA);
    assert.deepEqual(idToken.amr, ['pwd', 'otp', 'mfa']);
  });

  test('a user with a second factor always completes it: a password-only session is stepped up even when nothing asks for it', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { browser } = await passwordOnly(user.username);
    await enrollTotp(t, user);
    const first = await browser.get(authorizeQuery(app.client.id, REDIRECT_URI));
    assert.match(first.headers.get('location') ?? '', /^\/interaction\//, 'not answered from the password-only session');
    assert.match(await (await browser.get(first.headers.get('location')!)).text(), /name="otp"/);
  });

  test('an essential acr claim naming the mfa class steps up like acr_values', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { browser } = await passwordOnly(user.username);
    await enrollTotp(t, user);
    const claims = JSON.stringify({ id_token: { acr: { essential: true, values: [ACR_MFA] } } });
    const { html } = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI, { claims }));
    assert.match(html, /name="otp"/);
  });

  test('acr_values naming unknown classes ("1 2") still complete with a password alone', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI, { acr_values: '1 2' }));
    await toClient(await submitLogin(browser, form, user.username));
  });

  test('a client that requires a second factor offers an account without one to set one up in the flow, not a dead end (set-up-in-flow.test.ts)', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(strict.client.id, REDIRECT_URI));
    const afterPassword = await submitLogin(browser, form, user.username);
    assert.equal(afterPassword.headers.get('location'), path, 'no code, and no 403 page');
    assert.match(await (await browser.get(path)).text(), /Set up two-step verification/);
  });

  test('a client that requires a second factor steps up a password-only session of an account that has one', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { browser } = await passwordOnly(user.username);
    const { secret } = await enrollTotp(t, user);
    clock.advance(30_000);
    const { form } = await openInteraction(browser, authorizeQuery(strict.client.id, REDIRECT_URI));
    await toClient(await browser.post(form.action, { ...form.hidden, otp: totpAt(secret, clock.now()) }));
  });
});
