// A single-page app on its own origin, using the standard SPA library oidc-client-ts in real Chromium:
// signinRedirect → login and consent pages → signinRedirectCallback (the code redeemed by a cross-origin
// fetch to /token, then /userinfo) → signinSilent (refresh token grant, again cross-origin) → signoutRedirect.
// Every fetch the library makes (discovery, /token, /userinfo) is cross-origin, so the browser lets the app
// read the answers only because those endpoints answer CORS for the client's redirect URI origin.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { launchChromium, type ChromiumProfile } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { createUser, PASSWORD, SIGN_IN } from '../helpers/users.js';

// The package's exports map does not list its browser bundle, so it is read by path.
const OIDC_CLIENT_BUNDLE = fileURLToPath(new URL('../../node_modules/oidc-client-ts/dist/browser/oidc-client-ts.min.js', import.meta.url));

/** The SPA: every page loads the library and a UserManager; /callback finishes the sign-in. */
function spaPage(issuer: string, origin: string, clientId: string, body: string): string {
  const settings = {
    authority: issuer,
    client_id: clientId,
    redirect_uri: `${origin}/callback`,
    post_logout_redirect_uri: `${origin}/signed-out`,
    response_type: 'code',
    scope: 'openid profile offline_access',
    loadUserInfo: true,
    automaticSilentRenew: false,
  };
  return `<!doctype html><meta charset="utf-8"><title>SPA</title><h1>SPA</h1><pre id="out"></pre>
<script src="/oidc-client-ts.min.js"></script>
<script>
  globalThis.manager = new oidc.UserManager({ ...${JSON.stringify(settings)}, userStore: new oidc.WebStorageStateStore({ store: globalThis.localStorage }) });
  ${body}
</script>`;
}

async function startSpa(issuer: () => string, clientId: () => string): Promise<{ server: Server; origin: string }> {
  const bundle = readFileSync(OIDC_CLIENT_BUNDLE);
  let origin = '';
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://spa').pathname;
    if (path === '/oidc-client-ts.min.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      response.end(bundle);
      return;
    }
    const script =
      path === '/callback'
        ? `manager.signinRedirectCallback().then((user) => { document.getElementById('out').textContent = 'signed in'; globalThis.signedIn = user; }, (error) => { globalThis.signInError = String(error); });`
        : '';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(spaPage(issuer(), origin, clientId(), script));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  origin = `http://127.0.0.1:${address.port}`;
  return { server, origin };
}

describe('a single-page app with oidc-client-ts on another origin', () => {
  let t: TestApp;
  let spa: { server: Server; origin: string };
  let clientId = '';
  let user: User;
  let chromiumProfile: ChromiumProfile | undefined;
  let context: BrowserContext;
  before(async () => {
    t = await startTestApp();
    spa = await startSpa(
      () => t.url,
      () => clientId,
    );
    clientId = (
      await createClient(t.core.db, t.core.clock, {
        name: 'Browser SPA',
        skipConsent: false,
        redirectUris: [`${spa.origin}/callback`],
        postLogoutRedirectUris: [`${spa.origin}/signed-out`],
      })
    ).client.id;
    t.core.clients.forget(clientId);
    user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    chromiumProfile = await launchChromium();
    context = chromiumProfile.context;
  });
  after(async () => {
    await chromiumProfile?.close();
    await new Promise((resolve) => spa.server.close(resolve));
    await t.close();
  });

  test('oidc-client-ts completes sign-in, silent refresh with the refresh token, and sign-out from its own origin', async () => {
    const page = await context.newPage();
    try {
      await page.goto(`${spa.origin}/`);
      // signinRedirect fetches discovery cross-origin, then navigates to /authorize.
      // Not awaited inside the page: the navigation it ends with destroys the page's context.
      await page.evaluate(() => {
        void (globalThis as unknown as { manager: { signinRedirect(): Promise<void> } }).manager.signinRedirect();
      });
      await page.waitForSelector('input[name="username"]');
      assert.ok(page.url().startsWith(`${t.url}/`));
      await page.fill('input[name="username"]', user.username);
      await page.fill('input[name="password"]', PASSWORD);
      await page.click('button[type="submit"]');
      await page.waitForSelector('button[name="decision"]');
      await page.click('button[name="decision"][value="allow"]');
      await page.waitForURL((url) => url.href.startsWith(`${spa.origin}/callback`));
      await page.waitForFunction(() => 'signedIn' in globalThis || 'signInError' in globalThis);
      const signedIn = await page.evaluate(() => {
        const w = globalThis as unknown as {
          signedIn?: { access_token: string; refresh_token?: string; profile: Record<string, unknown> };
          signInError?: string;
        };
        return w.signInError ?? { accessToken: w.signedIn!.access_token, refreshToken: w.signedIn!.refresh_token, profile: w.signedIn!.profile };
      });
      assert.equal(typeof signedIn, 'object', `sign-in failed: ${String(signedIn)}`);
      const first = signedIn as { accessToken: string; refreshToken?: string; profile: Record<string, unknown> };
      assert.ok(first.accessToken);
      assert.ok(first.refreshToken, 'offline_access gave the SPA a refresh token');
      assert.equal(first.profile.sub, user.id);

      // signinSilent with a stored refresh token is a refresh_token grant: a cross-origin POST /token.
      const renewed = await page.evaluate(async () => {
        const manager = (globalThis as unknown as { manager: { signinSilent(): Promise<{ access_token: string; refresh_token?: string } | null> } }).manager;
        try {
          const user = await manager.signinSilent();
          return { accessToken: user?.access_token, refreshToken: user?.refresh_token };
        } catch (error) {
          return { error: String(error) };
        }
      });
      assert.equal('error' in renewed ? renewed.error : undefined, undefined);
      const second = renewed as { accessToken?: string; refreshToken?: string };
      assert.ok(second.accessToken && second.accessToken !== first.accessToken, 'a new access token');
      assert.ok(second.refreshToken && second.refreshToken !== first.refreshToken, 'the refresh token rotated');

      // signoutRedirect sends the id_token_hint to /logout, which ends the session and returns to the SPA.
      await page.evaluate(() => {
        void (globalThis as unknown as { manager: { signoutRedirect(): Promise<void> } }).manager.signoutRedirect();
      });
      await page.waitForURL((url) => url.href.startsWith(`${spa.origin}/signed-out`));
      assert.equal(await page.evaluate(() => (globalThis as unknown as { manager: { getUser(): Promise<unknown> } }).manager.getUser()), null);
      // The session at the server ended too: signing in again asks for the password.
      await page.evaluate(() => {
        void (globalThis as unknown as { manager: { signinRedirect(): Promise<void> } }).manager.signinRedirect();
      });
      await page.waitForSelector('input[name="password"]');
    } finally {
      await page.close();
    }
  });
});
