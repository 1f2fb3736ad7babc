// Second factors in a real browser (Debian's chromium through playwright-core), on a 390-px phone screen in
// dark mode, driven by the keyboard: a user sets up TOTP on /account (the code computed here from the
// secret the page shows, with an RFC 6238 implementation of the test's own), signs in to an application
// with password + code, signs in again with a recovery code, and revokes the application from /account.
// No page may scroll sideways. Screenshots go to test-output/second-factor/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { manualClock } from '../../src/clock.js';
import { fitsAndShoot, launchBrowser, startClientPage, typeInto } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, postToken, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { secretOfUri, totpAt } from '../helpers/totp.js';
import { authorizeQuery } from '../interaction/browserless.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';
import { RFC7636 } from '../helpers/pkce.js';

const OUTPUT = join(process.cwd(), 'test-output', 'second-factor');

describe('second factors in a real browser (390 px, dark mode)', () => {
  let t: TestApp;
  let clientPage: Server;
  let redirectUri: string;
  let fixture: ClientFixture;
  let user: User;
  let browser: Browser | undefined;
  let context: BrowserContext;
  const clock = manualClock(Date.now());
  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    t = await startTestApp({ clock, env: {} });
    ({ server: clientPage, redirectUri } = await startClientPage());
    fixture = await createClient(t.core.db, t.core.clock, { name: 'Photo Printer', redirectUris: [redirectUri] });
    user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => clientPage.close(resolve));
    await t.close();
  });

  test('TOTP enrollment on /account, sign-in with a code, sign-in with a recovery code, and revoking the app', async () => {
    const page = await context.newPage();
    // Enrollment.
    await page.goto(`${t.url}/account`);
    await typeInto(page, 'Username', user.username);
    await typeInto(page, 'Password', PASSWORD, true);
    await page.waitForSelector('h1:text("Your account")');
    await page.getByRole('button', { name: 'Set up authenticator app' }).press('Enter');
    await page.waitForSelector('figure.qr svg');
    await page.locator('summary').press('Enter');
    const secret = secretOfUri((await page.textContent('#totp-uri'))!);
    await fitsAndShoot(page, OUTPUT, 'account-enroll');
    await typeInto(page, 'Code from your authenticator app', totpAt(secret, clock.now()), true);
    await page.waitForSelector('#recovery-codes');
    const recoveryCodes = await page.locator('#recovery-codes code').allTextContents();
    assert.equal(recoveryCodes.length, 10);
    await fitsAndShoot(page, OUTPUT, 'recovery-codes');

    // Sign in to the application: password, then a code of the next time step.
    await context.clearCookies();
    clock.advance(30_000);
    await page.goto(t.url + authorizeQuery(fixture.client.id, redirectUri, { state: 's1' }));
    await typeInto(page, 'Username', user.username);
    await typeInto(page, 'Password', PASSWORD, true);
    await page.waitForSelector('input[name="otp"]');
    await fitsAndShoot(page, OUTPUT, 'second-factor');
    await typeInto(page, 'Code from your authenticator app', totpAt(secret, clock.now()), true);
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    const code = new URL(page.url()).searchParams.get('code')!;
    const exchanged = await postToken(t.url, fixture, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: RFC7636.verifier });
    assert.equal(exchanged.status, 200, 'the application now holds a grant');

    // Again with a recovery code (prompt=login asks for the password and the second factor again).
    await page.goto(t.url + authorizeQuery(fixture.client.id, redirectUri, { state: 's2', prompt: 'login' }));
    await typeInto(page, 'Username', user.username);
    await typeInto(page, 'Password', PASSWORD, true);
    await page.waitForSelector('input[name="otp"]');
    await page.locator('summary').press('Enter');
    await typeInto(page, 'Recovery code', recoveryCodes[0]!, true);
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    assert.equal(new URL(page.url()).searchParams.get('state'), 's2');

    // The account page lists the application; revoking it removes it.
    await page.goto(`${t.url}/account`);
    await page.waitForSelector('h1:text("Your account")');
    assert.match(await page.content(), /Recovery codes left: <strong>9<\/strong>/);
    await fitsAndShoot(page, OUTPUT, 'account');
    await page.getByRole('button', { name: 'Revoke access of Photo Printer' }).press('Enter');
    await page.waitForSelector('p.notice');
    assert.doesNotMatch(await page.content(), /Photo Printer/);
    await page.close();
  });
});
