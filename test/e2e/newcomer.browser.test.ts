// The first ten minutes, in a real browser (Debian's chromium through playwright-core), on a phone-sized
// screen (390 px) and a desktop one: home page → demo → login (a wrong password first) → consent → the
// demo showing the decoded tokens and the /v1 answer → refresh → sign-out; plus the logout confirmation
// (with Cancel), an error page and the API reference (/docs). No page may scroll sideways. Screenshots go to test-output/newcomer/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { fitsAndShoot, launchChromium, type ChromiumProfile } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createUser, PASSWORD, SIGN_IN } from '../helpers/users.js';

const OUTPUT = join(process.cwd(), 'test-output', 'newcomer');
const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 800 },
] as const;

describe('a newcomer walks from the home page through the demo in a real browser', () => {
  let t: TestApp;
  let chromiumProfile: ChromiumProfile | undefined;
  let context: BrowserContext;
  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    t = await startTestApp({ env: { DEMO_ENABLED: 'true', BRAND_ACCENT_COLOR: '#0f766e' } });
    chromiumProfile = await launchChromium();
    context = chromiumProfile.context;
  });
  after(async () => {
    await chromiumProfile?.close();
    await t.close();
  });

  for (const viewport of VIEWPORTS) {
    test(`every page fits a ${viewport.width}-px screen: home → demo → login → consent → tokens and /v1 → refresh → sign-out`, async () => {
      const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
      await context.clearCookies();
      const page = await context.newPage();
      const shot = (name: string) => fitsAndShoot(page, OUTPUT, `${viewport.name}-${name}`);
      try {
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
        await page.goto(`${t.url}/`);
        assert.equal(await page.textContent('h1'), 'Welcome to Gatehouse');
        await shot('1-home');

        await page.click('a[href="/demo"] >> nth=0');
        await page.waitForURL(`${t.url}/demo`);
        await shot('2-demo-signed-out');

        await page.click('a[href="/demo/login"]');
        await page.waitForSelector('input[name="password"]');
        await shot('3-login');
        await page.fill('input[name="username"]', user.username);
        await page.fill('input[name="password"]', 'not the password');
        await page.click('button[type="submit"]');
        await page.waitForSelector('.error[role="alert"]');
        assert.equal(await page.inputValue('input[name="username"]'), user.username, 'the username survives a failed login');
        await shot('4-login-failed');

        await page.fill('input[name="password"]', PASSWORD);
        await page.click('button[type="submit"]');
        await page.waitForSelector('button[name="decision"]');
        await shot('5-consent');
        await page.click('button[name="decision"][value="allow"]');

        await page.waitForURL(`${t.url}/demo`);
        const signedIn = await page.content();
        assert.match((await page.textContent('h1')) ?? '', /Signed in as Test User/);
        assert.match(signedIn, new RegExp(`"sub": "${user.id}"`));
        assert.match(signedIn, /"client_id": "gatehouse-demo"/);
        assert.match(signedIn, /Status <strong>200<\/strong>/);
        await shot('6-demo-signed-in');

        // The accent colour of the configuration reached the page through brand.css.
        const accent = await page.evaluate<string>("getComputedStyle(document.querySelector('button')).backgroundColor");
        assert.equal(accent, 'rgb(15, 118, 110)');

        await page.click('button[value="refresh"]');
        await page.waitForSelector('text=Tokens refreshed');
        await shot('7-demo-refreshed');

        // The logout confirmation (no id_token_hint): Cancel goes home and keeps the session.
        const confirm = await context.newPage();
        await confirm.setViewportSize({ width: viewport.width, height: viewport.height });
        await confirm.goto(`${t.url}/logout`);
        await confirm.waitForSelector('button[name="confirm"]');
        await fitsAndShoot(confirm, OUTPUT, `${viewport.name}-8-logout-confirm`);
        await confirm.click('a.button.secondary');
        await confirm.waitForURL(`${t.url}/`);
        await confirm.close();

        await page.click('button[value="logout"]');
        await page.waitForURL((url) => url.pathname === '/demo');
        await page.waitForSelector('a[href="/demo/login"]');
        await shot('9-demo-signed-out-again');

        // An error page offers a way forward and explains its reference.
        await page.goto(`${t.url}/authorize?client_id=nobody&response_type=code`);
        assert.match(await page.content(), /quote this reference/);
        assert.ok(await page.$('a.button[href="/"]'));
        await shot('10-error');

        // The API reference from the home page's links: its wide operations table scrolls in its own box.
        await page.goto(`${t.url}/docs`);
        await page.waitForSelector('h2');
        await shot('10b-docs');

        if (viewport.name === 'phone') {
          await page.emulateMedia({ colorScheme: 'dark' });
          await page.goto(`${t.url}/`);
          await shot('11-home-dark');
        }
      } finally {
        await page.close();
      }
    });
  }
});
