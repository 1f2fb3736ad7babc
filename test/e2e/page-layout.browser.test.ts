// The sign-in pages on a phone (390×844) in light and dark mode, in a real browser (Debian's chromium through
// playwright-core): login, second factor, consent and the account page. None may scroll sideways
// (document.documentElement.scrollWidth <= 390); `prefers-color-scheme: dark` must change the page's
// background; every visible input has a label; every control is reachable with the Tab key; and the pages
// keep their strict CSP (no inline script or style). Screenshots go to test-output/page-layout/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { manualClock } from '../../src/clock.js';
import { launchBrowser, startClientPage } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { totpAt } from '../helpers/totp.js';
import { authorizeQuery } from '../interaction/browserless.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';

const OUTPUT = join(process.cwd(), 'test-output', 'page-layout');
const WIDTH = 390;

type Scheme = 'light' | 'dark';

interface PageFacts {
  scrollWidth: number;
  background: string;
  unlabelled: string[];
  controls: string[];
  inlineStyleOrScript: number;
  lowContrast: string[];
}

// Runs in the page: no horizontal overflow, the body's background, inputs without a label, the controls.
const FACTS = `(() => {
  // checkVisibility: false inside a closed <details> too (its content is skipped, not merely hidden).
  const visible = (e) => e.checkVisibility({ visibilityProperty: true });
  const controls = [...document.querySelectorAll('input:not([type=hidden]), button, select, textarea, a[href], summary')].filter(visible);
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.getAttribute('name') ? '[name=' + e.getAttribute('name') + ']' : '') + ':' + (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 40);
  return {
    scrollWidth: document.documentElement.scrollWidth,
    background: getComputedStyle(document.body).backgroundColor,
    unlabelled: [...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter(visible).filter((e) => e.labels.length === 0 && !e.getAttribute('aria-label')).map(name),
    controls: controls.map(name),
    inlineStyleOrScript: document.querySelectorAll('script:not([src]), style, [style]').length,
    lowContrast: lowContrast(),
  };
  // WCAG 2.x contrast of each text's colour against the first opaque background behind it; below 4.5:1 fails.
  function rgb(value) {
    const m = value.match(/^rgba?\\(([\\d.]+),? ([\\d.]+),? ([\\d.]+)(?:,? \\/? ?([\\d.]+))?\\)$/);
    if (m) return { c: [m[1], m[2], m[3]].map((v) => Number(v) / 255), a: m[4] === undefined ? 1 : Number(m[4]) };
    const s = value.match(/^color\\(srgb ([\\d.]+) ([\\d.]+) ([\\d.]+)(?: \\/ ([\\d.]+))?\\)$/);
    if (s) return { c: [s[1], s[2], s[3]].map(Number), a: s[4] === undefined ? 1 : Number(s[4]) };
    return undefined;
  }
  function luminance(c) {
    const [r, g, b] = c.map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }
  function backgroundOf(e) {
    for (let at = e; at; at = at.parentElement) {
      const bg = rgb(getComputedStyle(at).backgroundColor);
      if (bg && bg.a >= 0.5) return bg.c;
    }
    return [1, 1, 1];
  }
  function lowContrast() {
    const out = [];
    for (const e of document.querySelectorAll('body *')) {
      if (!visible(e) || ![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '')) continue;
      const fg = rgb(getComputedStyle(e).color);
      if (!fg) continue;
      const [a, b] = [luminance(fg.c), luminance(backgroundOf(e))].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      if (ratio < 4.5) out.push(name(e) + ' ' + ratio.toFixed(2) + ':1');
    }
    return out;
  }
})()`;

/** Tabs through the page from the top and returns the controls focused, in order. */
async function tabOrder(page: Page, presses: number): Promise<string[]> {
  await page.evaluate('document.activeElement && document.activeElement.blur()');
  const seen: string[] = [];
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press('Tab');
    seen.push(
      await page.evaluate<string>(
        `(() => { const e = document.activeElement; return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.getAttribute('name') ? '[name=' + e.getAttribute('name') + ']' : '') + ':' + (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 40); })()`,
      ),
    );
  }
  return seen;
}

describe('the sign-in pages at 390 px, in light and dark mode, by keyboard', () => {
  let t: TestApp;
  let clientPage: Server;
  let redirectUri: string;
  let fixture: ClientFixture;
  let browser: Browser | undefined;
  const clock = manualClock(Date.now());
  const backgrounds = new Map<string, string>();

  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    t = await startTestApp({ clock, env: {} });
    ({ server: clientPage, redirectUri } = await startClientPage());
    fixture = await createClient(t.core.db, t.core.clock, {
      name: 'A rather long application name that could push a narrow page sideways',
      redirectUris: [redirectUri],
      skipConsent: false,
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => clientPage.close(resolve));
    await t.close();
  });

  async function check(page: Page, scheme: Scheme, label: string): Promise<void> {
    await page.waitForLoadState('load');
    const facts = await page.evaluate<PageFacts>(FACTS);
    await page.screenshot({ path: join(OUTPUT, `${label}-${scheme}.png`), fullPage: true });
    assert.ok(facts.scrollWidth <= WIDTH, `${label} (${scheme}): the page is ${facts.scrollWidth} px wide at ${WIDTH} px`);
    assert.deepEqual(facts.unlabelled, [], `${label}: inputs without a label`);
    assert.equal(facts.inlineStyleOrScript, 0, `${label}: inline style or script`);
    assert.deepEqual(facts.lowContrast, [], `${label} (${scheme}): text below 4.5:1 contrast`);
    const reached = new Set(await tabOrder(page, facts.controls.length + 2));
    const unreachable = facts.controls.filter((control) => !reached.has(control));
    assert.deepEqual(unreachable, [], `${label}: controls the Tab key never reaches`);
    backgrounds.set(`${label}-${scheme}`, facts.background);
  }

  for (const scheme of ['light', 'dark'] as const) {
    test(`login, second factor, consent and account pages fit ${WIDTH} px in ${scheme} mode, with labelled inputs reachable by Tab`, async () => {
      const user = await createUser(t.core.db, t.core.clock, { ...SIGN_IN, username: `a.rather.long.username.without.spaces.${scheme}` });
      const { secret } = await enrollTotp(t, user);
      clock.advance(30_000);
      const context = await browser!.newContext({ viewport: { width: WIDTH, height: 844 }, colorScheme: scheme });
      const page = await context.newPage();
      const csp: string[] = [];
      page.on('response', (response) => {
        if (response.request().resourceType() === 'document' && response.url().startsWith(t.url)) csp.push(response.headers()['content-security-policy'] ?? '');
      });

      await page.goto(t.url + authorizeQuery(fixture.client.id, redirectUri));
      await page.waitForSelector('input[name="password"]');
      await check(page, scheme, 'login');
      // A wrong password first, then a wrong code: the error messages must be readable too.
      await page.getByLabel('Username', { exact: true }).fill(user.username);
      await page.getByLabel('Password', { exact: true }).fill('not the password');
      await page.getByLabel('Password', { exact: true }).press('Enter');
      await page.waitForSelector('p.error');
      await check(page, scheme, 'login-failed');
      await page.getByLabel('Username', { exact: true }).fill(user.username);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Password', { exact: true }).press('Enter');

      await page.waitForSelector('input[name="otp"]');
      await check(page, scheme, 'second-factor');
      await page.getByLabel('Code from your authenticator app', { exact: true }).fill('000000');
      await page.getByLabel('Code from your authenticator app', { exact: true }).press('Enter');
      await page.waitForSelector('p.error');
      await check(page, scheme, 'second-factor-failed');
      const code = page.getByLabel('Code from your authenticator app', { exact: true });
      await code.fill(totpAt(secret, clock.now()));
      await code.press('Enter');

      await page.waitForSelector('button[name="decision"]');
      await check(page, scheme, 'consent');
      await page.locator('button[name="decision"][value="allow"]').press('Enter');
      await page.waitForURL((at) => at.href.startsWith(redirectUri));

      await page.goto(`${t.url}/account`);
      await page.waitForSelector('h1:text("Your account")');
      await check(page, scheme, 'account');
      assert.ok(
        csp.length >= 4 && csp.every((policy) => /script-src 'self'|default-src 'self'|default-src 'none'/.test(policy) && !policy.includes('unsafe-inline')),
        `CSP: ${csp.join(' | ')}`,
      );
      await context.close();
    });
  }

  test('prefers-color-scheme: dark changes the background of every page', () => {
    for (const label of ['login', 'login-failed', 'second-factor', 'second-factor-failed', 'consent', 'account']) {
      const light = backgrounds.get(`${label}-light`);
      const dark = backgrounds.get(`${label}-dark`);
      assert.ok(light && dark, `${label}: both schemes were measured`);
      assert.notEqual(dark, light, `${label}: the dark background is the light one (${light})`);
    }
  });
});
