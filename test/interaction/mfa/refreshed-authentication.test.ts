// Tokens issued on refresh state the ORIGINAL sign-in (OIDC Core 12.2): the grant records the sign-in's
// amr when its code is redeemed (migrations/0450), so the refreshed id_token and access token (and so
// introspection) carry the same amr, acr and auth_time — even after the browser session that signed in
// has ended, and for as many rotations as the family lives.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { manualClock } from '../../../src/clock.js';
import { ACR_MFA, ACR_PASSWORD } from '../../../src/oauth/issued-tokens/authentication-context.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient, postToken, refreshWith, REDIRECT_URI, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { basicAuth, postForm } from '../../oauth/fixtures.js';
import { totpAt } from '../../helpers/totp.js';
import { authorizeQuery, openInteraction, submitLogin } from '../browserless.js';
import { enrollTotp } from './enroll.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { SIGN_IN, createUser } from '../../helpers/users.js';
import { RFC7636 } from '../../helpers/pkce.js';
import { clientAnswer } from '../../helpers/client-answer.js';

describe('amr, acr and auth_time on refreshed tokens', () => {
  let t: TestApp;
  let app: ClientFixture;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock, env: {} });
    app = await createClient(t.core.db, t.core.clock, { type: 'confidential' });
  });
  after(() => t.close());

  const scope = 'openid profile offline_access';

  async function exchange(response: Response) {
    const location = (await clientAnswer(response)).href;
    assert.ok(location.startsWith(`${REDIRECT_URI}?code=`), `expected the code at the client, got ${location}`);
    const code = new URL(location).searchParams.get('code')!;
    const { status, body } = await postToken(t.url, app, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: RFC7636.verifier,
    });
    assert.equal(status, 200, JSON.stringify(body));
    return body as { id_token: string; access_token: string; refresh_token: string };
  }

  /** Password and TOTP sign-in; returns the code exchange's tokens. */
  async function signInWithTotp() {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { secret } = await enrollTotp(t, user);
    clock.advance(30_000);
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI, { scope }));
    await submitLogin(browser, form, user.username);
    const second = parseForm(await (await browser.get(path)).text());
    const done = await browser.post(second.action, { ...second.hidden, otp: totpAt(secret, clock.now()) });
    return { user, tokens: await exchange(done) };
  }

  const introspect = async (token: string) => (await postForm(`${t.url}/introspect`, { token }, { authorization: basicAuth(app.client.id, app.secret!) })).body;

  test('a refresh after a TOTP sign-in gives an id_token with amr otp and mfa, the mfa acr and the original auth_time', async () => {
    const { tokens } = await signInWithTotp();
    const original = decodeJwt(tokens.id_token);
    clock.advance(120_000);
    const refreshed = await refreshWith(t.url, app, tokens.refresh_token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    const idToken = decodeJwt(refreshed.body.id_token as string);
    assert.deepEqual(idToken.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(idToken.acr, ACR_MFA);
    assert.equal(idToken.auth_time, original.auth_time, 'auth_time is the sign-in, not the refresh');
    assert.ok((idToken.iat as number) > (original.iat as number));
  });

  test('introspection of a refreshed access token shows the same amr and acr as the original sign-in', async () => {
    const { tokens } = await signInWithTotp();
    const refreshed = await refreshWith(t.url, app, tokens.refresh_token);
    const body = await introspect(refreshed.body.access_token as string);
    assert.equal(body.active, true);
    assert.deepEqual(body.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(body.acr, ACR_MFA);
    assert.equal(body.auth_time, decodeJwt(tokens.access_token).auth_time);
  });

  test('the sign-in is kept on the grant: after the browser session ended, and after a second rotation, refreshed tokens still carry it', async () => {
    const { user, tokens } = await signInWithTotp();
    await t.core.db.deleteFrom('browser_sessions').where('user_id', '=', user.id).execute();
    const first = await refreshWith(t.url, app, tokens.refresh_token);
    const second = await refreshWith(t.url, app, first.body.refresh_token as string);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.deepEqual(decodeJwt(second.body.id_token as string).amr, ['pwd', 'otp', 'mfa']);
    assert.equal(decodeJwt(second.body.access_token as string).acr, ACR_MFA);
  });

  test('a password-only sign-in stays password-only on refresh (amr ["pwd"], the password acr)', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI, { scope }));
    const tokens = await exchange(await submitLogin(browser, form, user.username));
    const refreshed = await refreshWith(t.url, app, tokens.refresh_token);
    const idToken = decodeJwt(refreshed.body.id_token as string);
    assert.deepEqual(idToken.amr, ['pwd']);
    assert.equal(idToken.acr, ACR_PASSWORD);
  });

  test('oauth4webapi accepts the refreshed id_token and reads its acr and amr', async () => {
    const { tokens } = await signInWithTotp();
    const issuer = new URL(t.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }));
    // The app runs on a manual clock; tell the library how far it is from the real one.
    const client: oauth.Client = { client_id: app.client.id, [oauth.clockSkew]: Math.round((clock.now() - Date.now()) / 1000) };
    const auth = oauth.ClientSecretBasic(app.secret!);
    const response = await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token, { [oauth.allowInsecureRequests]: true });
    const result = await oauth.processRefreshTokenResponse(as, client, response);
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    assert.equal(claims.acr, ACR_MFA);
    assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
  });
});
