// The answer to the client after one of our forms, in a real browser (Debian's chromium through
// playwright-core). Chromium applies the submitting page's CSP form-action to every redirect that follows a
// form submission (CSP3 §6.4.1, w3c/webappsec-csp#8), so a 303 to the client after our password, second-factor
// or consent form would be checked against our form-action — and a relying party whose redirect_uri redirects
// on to another origin (a broker handing the code to its application) would be blocked there. The answer is
// the hand-over page (src/interaction/pages/hand-over-page.ts): its refresh is a navigation of its own, so the
// chain reaches the application, and every page's form-action is 'self' alone. Each test is named after its rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { join } from 'node:path';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { manualClock } from '../../src/clock.js';
import { fitsAndShoot, launchChromium, type ChromiumProfile } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, postToken, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { RFC7636 } from '../helpers/pkce.js';
import { totpAt } from '../helpers/totp.js';
import { createUser, PASSWORD, SIGN_IN } from '../helpers/users.js';
import { authorizeQuery } from '../interaction/browserless.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';

const OUTPUT = join(process.cwd(), 'test-output', 'hand-over');

async function listen(handler: RequestListener): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

describe('the answer to the client after one of our forms', () => {
  let t: TestApp;
  let chromium: ChromiumProfile | undefined;
  let context: BrowserContext;
  /** The relying party's application, on its own origin: shows the query it was sent. */
  let app: { server: Server; origin: string };
  /** The broker: the registered redirect_uri, on another origin, that sends the browser on to the application. */
  let broker: { server: Server; origin: string };
  let brokerClient: ClientFixture;
  let consentClient: ClientFixture;
  const clock = manualClock(Date.now());

  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    t = await startTestApp({ clock });
    app = await listen((request, response) => {
      const query = new URL(request.url ?? '/', 'http://app').searchParams;
      const rows = [...query].map(
        ([k, v]) => `<tr><th>${k.replace(/[^a-z_]/g, '')}</th><td data-name="${k.replace(/[^a-z_]/g, '')}">${v.replace(/[<&]/g, '')}</td></tr>`,
      );
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><title>App</title><h1>At the application</h1><table>${rows.join('')}</table>`);
    });
    broker = await listen((request, response) => {
      const query = new URL(request.url ?? '/', 'http://broker').search;
      response.writeHead(302, { location: `${app.origin}/landed${query}` });
      response.end();
    });
    brokerClient = await createClient(t.core.db, t.core.clock, { name: 'Broker', redirectUris: [`${broker.origin}/cb`] });
    consentClient = await createClient(t.core.db, t.core.clock, { name: 'Brokered Shop', skipConsent: false, redirectUris: [`${broker.origin}/cb`] });
    chromium = await launchChromium();
    context = chromium.context;
  });
  after(async () => {
    await chromium?.close();
    await new Promise((resolve) => app?.server.close(resolve));
    await new Promise((resolve) => broker?.server.close(resolve));
    await t?.close();
  });

  const atApplication = (url: URL) => url.origin === app.origin;

  /** Opens the authorization request in a fresh browser and signs in with the password form. */
  async function signIn(
    fixture: ClientFixture,
    username: string,
    state: string,
  ): Promise<{ page: Page; answer: Promise<Response>; nextPage: Promise<Response> }> {
    await context.clearCookies();
    const page = await context.newPage();
    const login = page.waitForResponse((r) => /\/interaction\/[^/]+$/.test(new URL(r.url()).pathname) && r.request().method() === 'GET');
    await page.goto(t.url + authorizeQuery(fixture.client.id, `${broker.origin}/cb`, { state }));
    assert.match((await login).headers()['content-security-policy'] ?? '', /form-action 'self';/, 'the login page allows no form target but its own origin');
    await page.fill('input[name="username"]', username);
    await page.fill('input[name="password"]', PASSWORD);
    // The password form's answer, and the next page of ours it leads to (consent, second factor), if any.
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    const nextPage = page.waitForResponse((r) => /\/interaction\/[^/]+$/.test(new URL(r.url()).pathname) && r.request().method() === 'GET');
    nextPage.catch(() => undefined);
    await page.click('button[type="submit"]');
    return { page, answer, nextPage };
  }

  /** What the application was sent, once the browser arrived there. */
  async function landed(page: Page): Promise<URLSearchParams> {
    await page.waitForURL(atApplication);
    await page.waitForSelector('h1');
    assert.equal(await page.textContent('h1'), 'At the application');
    return new URL(page.url()).searchParams;
  }

  test("after a password sign-in, a redirect_uri that redirects on to another origin reaches it with the code: the form's answer is the hand-over page, not a redirect", async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    // The hand-over page flashes by: to look at it, its refresh is first answered with 204 (the browser stays on
    // the page); then the page's Continue link goes the whole way.
    await context.route(`${broker.origin}/**`, (route) => route.fulfill({ status: 204 }));
    const { page, answer } = await signIn(brokerClient, user.username, 'pw-state');
    const handOver = await answer;
    assert.equal(handOver.status(), 200, 'the answer to the password form is a page');
    await page.waitForSelector('h1:text("Returning to the application")');
    await fitsAndShoot(page, OUTPUT, 'hand-over');
    await context.unroute(`${broker.origin}/**`);
    await page.click('a:text("Continue")');
    const query = await landed(page);
    assert.equal(query.get('state'), 'pw-state');
    assert.equal(query.get('iss'), t.config.ISSUER);
    const exchanged = await postToken(t.url, brokerClient, {
      grant_type: 'authorization_code',
      code: query.get('code') ?? '',
      redirect_uri: `${broker.origin}/cb`,
      code_verifier: RFC7636.verifier,
    });
    assert.equal(exchanged.status, 200, 'the code the application got is good');
    await page.close();
  });

  test("after a password sign-in, the hand-over page's refresh alone takes the browser to the application", async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { page } = await signIn(brokerClient, user.username, 'refresh-state');
    const query = await landed(page);
    assert.equal(query.get('state'), 'refresh-state');
    assert.ok(query.get('code'));
    await page.close();
  });

  test('after consent, a redirect_uri that redirects on to another origin reaches it with the code; after a denial, with access_denied', async () => {
    for (const decision of ['allow', 'deny'] as const) {
      // A new user each time: an allowed consent is remembered.
      const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
      const { page, nextPage } = await signIn(consentClient, user.username, `consent-${decision}`);
      await page.waitForSelector('button[name="decision"]');
      assert.match(
        (await nextPage).headers()['content-security-policy'] ?? '',
        /form-action 'self';/,
        'the consent page allows no form target but its own origin',
      );
      await page.click(`button[name="decision"][value="${decision}"]`);
      const query = await landed(page);
      assert.equal(query.get('state'), `consent-${decision}`);
      if (decision === 'allow') assert.ok(query.get('code'), 'allowed: a code');
      else assert.deepEqual([query.get('error'), query.get('code')], ['access_denied', null], 'denied: the error, no code');
      await page.close();
    }
  });

  test('after a TOTP second factor, a redirect_uri that redirects on to another origin reaches it with the code', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { secret } = await enrollTotp(t, user);
    clock.advance(30_000);
    const { page, nextPage } = await signIn(brokerClient, user.username, 'totp-state');
    await page.waitForSelector('input[name="otp"]');
    assert.match(
      (await nextPage).headers()['content-security-policy'] ?? '',
      /form-action 'self';/,
      'the second-factor page allows no form target but its own origin',
    );
    await page.fill('input[name="otp"]', totpAt(secret, clock.now()));
    await page.click('button[type="submit"]');
    const query = await landed(page);
    assert.equal(query.get('state'), 'totp-state');
    assert.ok(query.get('code'));
    await page.close();
  });

  test("a native app's private-use scheme redirect URI is reached by the hand-over page's refresh (Chromium follows it like a redirect)", async () => {
    const native = await createClient(t.core.db, t.core.clock, { name: 'Native App', redirectUris: ['com.example.app:/cb'] });
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    await context.clearCookies();
    const page = await context.newPage();
    // Chromium hands a private-use scheme to the operating system; the navigation it starts is what we see.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const toApp = new Promise<string>((resolve) =>
      cdp.on('Network.requestWillBeSent', (event) => {
        if (event.request.url.startsWith('com.example.app:')) resolve(event.request.url);
      }),
    );
    await page.goto(t.url + authorizeQuery(native.client.id, 'com.example.app:/cb', { state: 'native' }));
    await page.fill('input[name="username"]', user.username);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('button[type="submit"]');
    const reached = new URL(await toApp);
    assert.equal(`${reached.protocol}${reached.pathname}`, 'com.example.app:/cb');
    assert.equal(reached.searchParams.get('state'), 'native');
    assert.ok(reached.searchParams.get('code'), 'the app is handed the code');
    await page.close();
  });
});
