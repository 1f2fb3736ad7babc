// The device flow (RFC 8628) as a person meets it, in a real browser (Debian's chromium through
// playwright-core) on a 390-px phone screen, with openid-client's device-flow API as the device: it starts
// with initiateDeviceAuthorization, the person opens the verification URI on the phone, confirms or types
// the code, signs in through the ordinary pages (here with a second factor: the one sign-in pipeline), reads
// the consent with its warning and decides; pollDeviceAuthorizationGrant then gets the tokens (or
// access_denied). Screenshots go to test-output/device-flow/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { manualClock } from '../../src/clock.js';
import { ACR_MFA } from '../../src/oauth/issued-tokens/authentication-context.js';
import { fitsAndShoot, launchBrowser, typeInto } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { totpAt } from '../helpers/totp.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';

const OUTPUT = join(process.cwd(), 'test-output', 'device-flow');
const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

describe('the device flow in a real browser, with openid-client as the device', () => {
  let t: TestApp;
  let config: oidc.Configuration;
  let browser: Browser | undefined;
  // Half a minute behind real time: the TOTP enrollment uses one step, the sign-in the next, and by then the
  // server's clock is about the real one again, which openid-client checks the id_token's iat against.
  const clock = manualClock(Date.now() - 30_000);
  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    t = await startTestApp({ clock, env: { DEVICE_POLL_INTERVAL: '1' } });
    const { client } = await createClient(t.core.db, t.core.clock, {
      name: 'Kitchen TV',
      grantTypes: [DEVICE_CODE_GRANT, 'refresh_token'] as never[],
      redirectUris: [],
    });
    config = await oidc.discovery(new URL(t.url), client.id, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t.close();
  });

  test('a user with an authenticator app follows verification_uri_complete, confirms the code, signs in with password and code, allows, and the device gets tokens with acr mfa', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { secret } = await enrollTotp(t, user);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid offline_access' });
    const context = await browser!.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(started.verification_uri_complete!);
    // Prefilled, but nothing happens until the person confirms it (RFC 8628 5.4).
    assert.equal(await page.getByLabel('Code from your device', { exact: true }).inputValue(), started.user_code);
    await fitsAndShoot(page, OUTPUT, 'confirm-code');
    await page.getByRole('button', { name: 'Continue' }).press('Enter');
    await typeInto(page, 'Username', user.username);
    await typeInto(page, 'Password', PASSWORD, true);
    await page.waitForSelector('h1:text("Two-step verification")');
    clock.advance(30_000);
    await typeInto(page, 'Code from your authenticator app', totpAt(secret, clock.now()), true);
    await page.waitForSelector('h1:text("Allow access?")');
    assert.match((await page.textContent('main'))!, /Kitchen TV[\s\S]*Only allow this if you started it yourself/);
    await fitsAndShoot(page, OUTPUT, 'consent');
    await page.getByRole('button', { name: 'Allow' }).press('Enter');
    await page.waitForSelector('h1:text("Device connected")');
    await fitsAndShoot(page, OUTPUT, 'connected');
    const tokens = await oidc.pollDeviceAuthorizationGrant(config, started);
    const claims = tokens.claims()!;
    assert.equal(claims.sub, user.id);
    assert.equal(claims.acr, ACR_MFA);
    assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
    assert.ok(tokens.refresh_token);
    await context.close();
  });

  test('a user types the code in lower case without the dash, signs in, denies, and the device hears access_denied', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const context = await browser!.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(started.verification_uri);
    await fitsAndShoot(page, OUTPUT, 'enter-code');
    await typeInto(page, 'Code from your device', started.user_code.replace('-', '').toLowerCase(), true);
    await typeInto(page, 'Username', user.username);
    await typeInto(page, 'Password', PASSWORD, true);
    await page.getByRole('button', { name: 'Deny' }).press('Enter');
    await page.waitForSelector('h1:text("Request denied")');
    await assert.rejects(oidc.pollDeviceAuthorizationGrant(config, started), (error: unknown) => (error as { error?: string }).error === 'access_denied');
    await context.close();
  });

  test('a wrong code shows the entry form again with an error, in words', async () => {
    const context = await browser!.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${t.url}/device`);
    await typeInto(page, 'Code from your device', 'BBBB-BBBB', true);
    await page.waitForSelector('p.error[role="alert"]');
    assert.match((await page.textContent('p.error'))!, /not valid/);
    await fitsAndShoot(page, OUTPUT, 'wrong-code');
    await context.close();
  });
});
