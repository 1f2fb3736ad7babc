// The re-authentication prompt of /account in a real browser (Debian's chromium through playwright-core),
// on a 390-px phone screen in dark mode, by keyboard: a session older than REAUTH_MAX_AGE that asks to set
// up an authenticator app is shown "Confirm it is you" instead; the password typed there lets the set-up
// go on (docs/security/account-factors.md). No page may scroll sideways. Screenshots go to
// test-output/account-reauthentication/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { manualClock } from '../../src/clock.js';
import { fitsAndShoot, launchBrowser, typeInto } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';

const OUTPUT = join(process.cwd(), 'test-output', 'account-reauthentication');

describe('the re-authentication prompt on /account in a real browser (390 px, dark mode)', () => {
  let t: TestApp;
  let browser: Browser | undefined;
  const clock = manualClock(Date.now());
  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    t = await startTestApp({ clock, env: {} });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t.close();
  });

  test('binding a factor needs a fresh proof: a stale session is asked for its password before the authenticator set-up starts', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const context = await browser!.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await page.goto(`${t.url}/account`);
    await typeInto(page, 'Username', user.username);
    await typeInto(page, 'Password', PASSWORD, true);
    await page.waitForSelector('h1:text("Your account")');

    clock.advance(t.core.config.REAUTH_MAX_AGE * 1000 + 1000);
    await page.getByRole('button', { name: 'Set up authenticator app' }).press('Enter');
    await page.waitForSelector('#reauth h2:text("Confirm it is you")');
    assert.equal(await page.locator('figure.qr').count(), 0, 'nothing was started');
    assert.match((await page.textContent('[role="alert"]'))!, /Confirm it is you/);
    await fitsAndShoot(page, OUTPUT, 'reauth-prompt');

    await typeInto(page, 'Your password', PASSWORD, true);
    await page.waitForSelector('[role="status"]:has-text("For the next few minutes")');
    await page.getByRole('button', { name: 'Set up authenticator app' }).press('Enter');
    await page.waitForSelector('figure.qr svg');
    await fitsAndShoot(page, OUTPUT, 'after-reauth');
    await context.close();
  });
});
