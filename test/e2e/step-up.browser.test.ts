// Step-up and revocation in a real browser (Debian's chromium through playwright-core), with openid-client as
// the relying party. A user signed in with the password only; the RP then asks acr_values of the MFA class:
// the browser is shown the second-factor page only (no password field), the code is computed here from the
// enrolled secret (test/helpers/totp.ts), and openid-client validates the id_token, whose acr/amr say MFA.
// Then: revoking the app from /account ends its refresh tokens (openid-client's refresh fails, invalid_grant).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { manualClock } from '../../src/clock.js';
import { ACR_MFA } from '../../src/oauth/issued-tokens/authentication-context.js';
import { launchBrowser, startClientPage } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { totpAt } from '../helpers/totp.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';
import { startOpenidClientFlow } from './openid-client-flow.js';

describe('step-up and app revocation in a real browser, with openid-client', () => {
  let t: TestApp;
  let clientPage: Server;
  let redirectUri: string;
  let fixture: ClientFixture;
  let config: oidc.Configuration;
  let browser: Browser | undefined;
  // Starts a minute behind real time: the TOTP enrollment uses up one time step, the sign-in a later one,
  // and by then the server's clock is the real one again, which openid-client checks iat against.
  const clock = manualClock(Date.now() - 60_000);
  before(async () => {
    t = await startTestApp({ clock, env: {} });
    ({ server: clientPage, redirectUri } = await startClientPage());
    fixture = await createClient(t.core.db, t.core.clock, { type: 'confidential', name: 'Step-up RP', redirectUris: [redirectUri] });
    config = await oidc.discovery(new URL(t.url), fixture.client.id, undefined, oidc.ClientSecretBasic(fixture.secret!), {
      execute: [oidc.allowInsecureRequests],
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => clientPage.close(resolve));
    await t.close();
  });

  /** Sends the browser to the RP's authorization URL; returns what the code exchange needs. */
  async function startFlow(page: Page, extra: Record<string, string> = {}) {
    const { finish } = await startOpenidClientFlow(page, config, redirectUri, { scope: 'openid offline_access', ...extra });
    return async () => {
      await page.waitForURL((at) => at.href.startsWith(redirectUri));
      return finish();
    };
  }

  async function passwordSignIn(page: Page, username: string) {
    const finish = await startFlow(page);
    await page.getByLabel('Username', { exact: true }).fill(username);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password', { exact: true }).press('Enter');
    return finish();
  }

  test('a password-only session asked for acr_values of the MFA class sees only the second-factor page; openid-client gets acr mfa and amr otp', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const context: BrowserContext = await browser!.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const plain = await passwordSignIn(page, user.username);
    assert.deepEqual(plain.claims()!.amr, ['pwd']);

    const { secret } = await enrollTotp(t, user);
    clock.advance(60_000);
    const finish = await startFlow(page, { acr_values: ACR_MFA });
    await page.waitForSelector('input[name="otp"]');
    assert.equal(await page.locator('input[name="password"]').count(), 0, 'no password field on a step-up');
    const code = page.getByLabel('Code from your authenticator app', { exact: true });
    await code.fill(totpAt(secret, clock.now()));
    await code.press('Enter');
    const tokens = await finish();
    const claims = tokens.claims()!;
    assert.equal(claims.sub, user.id);
    assert.equal(claims.acr, ACR_MFA);
    assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
    await context.close();
  });

  test('revoking the app on the account page ends its refresh tokens: openid-client refresh fails with invalid_grant', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const context = await browser!.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const tokens = await passwordSignIn(page, user.username);
    assert.ok(tokens.refresh_token);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token);
    assert.ok(refreshed.refresh_token, 'the refresh token works before the revocation');

    await page.goto(`${t.url}/account`);
    await page.waitForSelector('h1:text("Your account")');
    await page.getByRole('button', { name: 'Revoke access of Step-up RP' }).press('Enter');
    await page.waitForSelector('p.notice');
    await assert.rejects(oidc.refreshTokenGrant(config, refreshed.refresh_token), (error: unknown) => {
      assert.ok(error instanceof oidc.ResponseBodyError, String(error));
      assert.equal(error.error, 'invalid_grant');
      return true;
    });
    await context.close();
  });
});
