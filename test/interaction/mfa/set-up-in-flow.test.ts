// No dead end when an application asks for more than the account has (issue 29 item 5,
// docs/second-factors.md "Policy and step-up"): a password-only account in a flow that demands a second
// factor is offered to set one up inside the flow, under the re-authentication rule of /account, must then
// USE the new factor before any code, and can decline, which answers the client with the OpenID Connect
// error unmet_authentication_requirements (with state and iss). Each test is named after its rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { manualClock } from '../../../src/clock.js';
import { ACR_MFA } from '../../../src/oauth/issued-tokens/authentication-context.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { createClient, postToken, REDIRECT_URI, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { RFC7636 } from '../../helpers/pkce.js';
import { newSoftPasskey } from '../../helpers/soft-passkey.js';
import { secretOfUri, totpAt } from '../../helpers/totp.js';
import { PASSWORD, SIGN_IN, createUser } from '../../helpers/users.js';
import { authorizeQuery, openInteraction, submitLogin } from '../browserless.js';
import { clientAnswer } from '../../helpers/client-answer.js';

const STALE_MS = 301_000;

describe('setting up a second factor inside the flow, or declining it', () => {
  let t: TestApp;
  let app: ClientFixture;
  let strict: ClientFixture;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock, env: {} });
    app = await createClient(t.core.db, t.core.clock, { skipConsent: false });
    strict = await createClient(t.core.db, t.core.clock, { requireMfa: true, skipConsent: true });
  });
  after(() => t.close());

  /** A new password-only user types the password in a flow that demands a second factor: the set-up offer. */
  async function atTheOffer(fixture = strict, extra: Record<string, string> = {}) {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(fixture.client.id, REDIRECT_URI, extra));
    const afterPassword = await submitLogin(browser, form, user.username);
    assert.equal(afterPassword.headers.get('location'), path, 'back to the interaction, not to the client');
    const html = await (await browser.get(path)).text();
    assert.match(html, /Set up two-step verification/);
    return { user, browser, path, csrf: parseForm(html).hidden.csrf! };
  }

  async function startTotp(browser: Browser, path: string, csrf: string): Promise<string> {
    assert.equal((await browser.post(`${path}/set-up/totp`, { csrf })).headers.get('location'), path);
    const uri = /<code id="totp-uri">([^<]+)<\/code>/.exec(await (await browser.get(path)).text())?.[1];
    assert.ok(uri, 'the page shows the new authenticator key');
    return secretOfUri(uri.replace(/&amp;/g, '&'));
  }

  const codeAt = async (response: Response) => {
    const location = (await clientAnswer(response)).href;
    assert.ok(location.startsWith(`${REDIRECT_URI}?`), `expected the client, got ${response.status} ${location}`);
    return new URL(location).searchParams;
  };

  test('declining to set up a second factor answers the client unmet_authentication_requirements, with state and iss', async () => {
    const { browser, path, csrf } = await atTheOffer(strict);
    const answer = await codeAt(await browser.post(`${path}/decline`, { csrf }));
    assert.equal(answer.get('error'), 'unmet_authentication_requirements');
    assert.equal(answer.get('state'), 'state-123');
    assert.equal(answer.get('iss'), t.config.ISSUER);
    assert.equal(answer.get('code'), null);
    // Single use: the interaction is gone, a second decline answers nothing new.
    assert.equal((await browser.post(`${path}/decline`, { csrf })).status, 400);
  });

  test('acr_values of the mfa class and an essential acr claim offer the set-up too, instead of a 403 page', async () => {
    await atTheOffer(app, { acr_values: ACR_MFA });
    await atTheOffer(app, { claims: JSON.stringify({ id_token: { acr: { essential: true, values: [ACR_MFA] } } }) });
  });

  test('a flow demanding a second factor issues no code to a password-only session, whichever step is posted', async () => {
    const { user, browser, path, csrf } = await atTheOffer(app, { acr_values: ACR_MFA });
    const consent = await browser.post(`${path}/consent`, { csrf, decision: 'allow' });
    assert.equal(consent.headers.get('location'), path, 'a posted consent goes back to the page, no code');
    const consents = await t.core.db.selectFrom('consents').select('user_id').where('user_id', '=', user.id).execute();
    assert.equal(consents.length, 0, 'nothing was approved');
    assert.match(await (await browser.get(path)).text(), /Set up two-step verification/, 'the page still offers the set-up');
  });

  test('binding a factor in the flow never raises acr: the new authenticator must be used once, then the code carries acr mfa', async () => {
    const { browser, path, csrf } = await atTheOffer(strict);
    const secret = await startTotp(browser, path, csrf);
    const confirmed = await browser.post(`${path}/set-up/totp/confirm`, { csrf, otp: totpAt(secret, clock.now()) });
    assert.equal(confirmed.status, 200);
    assert.match(await confirmed.text(), /id="recovery-codes"/, 'the recovery codes are shown once');
    // Bound, not used: the interaction asks for the new factor, and no step reaches the client.
    const page = await (await browser.get(path)).text();
    assert.match(page, /name="otp"/);
    assert.doesNotMatch(page, /name="password"/);
    assert.equal((await browser.post(`${path}/consent`, { csrf, decision: 'allow' })).headers.get('location'), path);

    clock.advance(30_000); // the enrollment used up its time step
    const form = parseForm(page);
    const params = await codeAt(await browser.post(form.action, { ...form.hidden, otp: totpAt(secret, clock.now()) }));
    const { status, body } = await postToken(t.url, strict, {
      grant_type: 'authorization_code',
      code: params.get('code')!,
      redirect_uri: REDIRECT_URI,
      code_verifier: RFC7636.verifier,
    });
    assert.equal(status, 200, JSON.stringify(body));
    const idToken = decodeJwt(body.id_token as string);
    assert.equal(idToken.acr, ACR_MFA);
    assert.deepEqual(idToken.amr, ['pwd', 'otp', 'mfa']);
  });

  test('binding a factor in the flow needs a fresh proof: a password older than REAUTH_MAX_AGE is asked again before the set-up starts', async () => {
    const { user, browser, path, csrf } = await atTheOffer(strict);
    clock.advance(STALE_MS);
    assert.equal((await browser.post(`${path}/set-up/totp`, { csrf })).headers.get('location'), path);
    const totp = await t.core.db.selectFrom('totp_credentials').select('user_id').where('user_id', '=', user.id).execute();
    assert.equal(totp.length, 0, 'nothing was started');
    const passkeyOptions = await browser.postJson(`${path}/set-up/passkey/options`, { csrf });
    assert.equal(passkeyOptions.status, 409, 'no passkey registration either');
    const html = await (await browser.get(path)).text();
    assert.match(html, /Confirm it is you/);
    assert.doesNotMatch(html, /Set up authenticator app/);

    assert.equal((await browser.post(`${path}/set-up/reauth`, { csrf, password: 'wrong password' })).headers.get('location'), `${path}?error=reauth_failed`);
    assert.equal((await browser.post(`${path}/set-up/reauth`, { csrf, password: PASSWORD })).headers.get('location'), path);
    await startTotp(browser, path, csrf);
  });

  test('a passkey set up in the flow is then used once, and the code carries acr mfa', async () => {
    const { user, browser, path, csrf } = await atTheOffer(strict);
    const key = newSoftPasskey(user.id);
    const options = (await (await browser.postJson(`${path}/set-up/passkey/options`, { csrf })).json()) as { challenge: string };
    const registered = await browser.postJson(`${path}/set-up/passkey/verify`, {
      csrf,
      name: 'Phone',
      response: key.register(options.challenge, t.config.ISSUER),
    });
    assert.equal(registered.status, 200, await registered.clone().text());
    assert.deepEqual(await registered.json(), { redirect: path });
    // Bound, not used: the page asks for the passkey (a second factor of this user) before anything else.
    assert.match(await (await browser.get(path)).text(), /Use a passkey/);
    const assertion = (await (await browser.postJson(`${path}/passkey/options`, { csrf })).json()) as { challenge: string };
    const used = await browser.postJson(`${path}/passkey/verify`, { csrf, response: key.assert(assertion.challenge, t.config.ISSUER) });
    assert.equal(used.status, 200, await used.clone().text());
    const params = await codeAt(await browser.get(path));
    const { body } = await postToken(t.url, strict, {
      grant_type: 'authorization_code',
      code: params.get('code')!,
      redirect_uri: REDIRECT_URI,
      code_verifier: RFC7636.verifier,
    });
    const idToken = decodeJwt(body.id_token as string);
    assert.equal(idToken.acr, ACR_MFA);
    assert.deepEqual(idToken.amr, ['pwd', 'hwk', 'mfa']);
  });

  test('prompt=none for a signed-in account without the demanded factor answers unmet_authentication_requirements, with state and iss', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI));
    await submitLogin(browser, form, user.username); // a password-only session (the consent page follows)
    const answer = await codeAt(await browser.get(authorizeQuery(strict.client.id, REDIRECT_URI, { prompt: 'none' })));
    assert.equal(answer.get('error'), 'unmet_authentication_requirements');
    assert.equal(answer.get('state'), 'state-123');
    assert.equal(answer.get('iss'), t.config.ISSUER);
  });
});
