// No dead end when an application asks for more than the account has (issue 29 item 5), in a real browser
// (Debian's chromium through playwright-core) on a 390-px phone screen, with openid-client as the relying
// party asking acr_values of the MFA class. A password-only user types the password, is offered to set up
// two-step verification inside the flow, sets up an authenticator app (the code is computed here from the
// key the page shows), keeps the recovery codes, then USES the new app once (binding alone never raises
// acr), and openid-client validates an id_token with acr mfa. Declining instead brings the browser back to
// the client with unmet_authentication_requirements, state and iss. Screenshots go to test-output/set-up-in-flow/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { manualClock } from '../../src/clock.js';
import { ACR_MFA } from '../../src/oauth/issued-tokens/authentication-context.js';
import { fitsAndShoot, launchBrowser, startClientPage, typeInto } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { secretOfUri, totpAt } from '../helpers/totp.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';
import { startOpenidClientFlow } from './openid-client-flow.js';

const OUTPUT = join(process.cwd(), 'test-output', 'set-up-in-flow');

describe('setting up a second factor inside the flow, in a real browser, with openid-client', () => {
  let t: TestApp;
  let clientPage: Server;
  let redirectUri: string;
  let config: oidc.Configuration;
  let browser: Browser | undefined;
  // A minute behind real time: the set-up uses one TOTP step, the sign-in the next, and by then the server's
  // clock is about the real one again, which openid-client checks iat against.
  const clock = manualClock(Date.now() - 60_000);
  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    t = await startTestApp({ clock, env: {} });
    ({ server: clientPage, redirectUri } = await startClientPage());
    const fixture = await createClient(t.core.db, t.core.clock, { type: 'confidential', name: 'Strict RP', redirectUris: [redirectUri], skipConsent: true });
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

  /** Sends the browser to the RP's authorization URL asking for the MFA class and signs in with the password. */
  async function passwordAtStrictRp(page: Page, username: string) {
    const { state, finish } = await startOpenidClientFlow(page, config, redirectUri, { scope: 'openid', acr_values: ACR_MFA });
    await typeInto(page, 'Username', username);
    await typeInto(page, 'Password', PASSWORD, true);
    await page.waitForSelector('h1:text("Set up two-step verification")');
    return { state, finish };
  }

  test('a password-only user asked for acr mfa sets up an authenticator app inside the flow, uses it once, and openid-client gets acr mfa', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const context = await browser!.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const { finish } = await passwordAtStrictRp(page, user.username);
    await fitsAndShoot(page, OUTPUT, 'offer');

    await page.getByRole('button', { name: 'Set up authenticator app' }).press('Enter');
    await page.waitForSelector('figure.qr svg');
    await fitsAndShoot(page, OUTPUT, 'qr');
    const secret = secretOfUri((await page.textContent('#totp-uri'))!);
    await typeInto(page, 'Code from your authenticator app', totpAt(secret, clock.now()), true);
    await page.waitForSelector('#recovery-codes');
    assert.equal(await page.locator('#recovery-codes li').count(), 10);
    await page.getByRole('link', { name: 'Continue' }).press('Enter');

    // Bound, not yet used: the flow asks for the new app's next code before going back to the client.
    await page.waitForSelector('h1:text("Two-step verification")');
    assert.equal(await page.locator('input[name="password"]').count(), 0, 'no password again');
    clock.advance(30_000);
    await typeInto(page, 'Code from your authenticator app', totpAt(secret, clock.now()), true);
    await page.waitForURL((at) => at.href.startsWith(redirectUri));
    const claims = (await finish()).claims()!;
    assert.equal(claims.sub, user.id);
    assert.equal(claims.acr, ACR_MFA);
    assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
    await context.close();
  });

  test('declining the set-up brings the browser back to the client with unmet_authentication_requirements, state and iss', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const context = await browser!.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const { state } = await passwordAtStrictRp(page, user.username);
    await page.getByRole('button', { name: 'Not now: return to Strict RP' }).press('Enter');
    await page.waitForURL((at) => at.href.startsWith(redirectUri));
    const back = new URL(page.url()).searchParams;
    assert.equal(back.get('error'), 'unmet_authentication_requirements');
    assert.equal(back.get('state'), state);
    assert.equal(back.get('iss'), t.config.ISSUER);
    await context.close();
  });
});
