// End to end in a real browser (Debian's chromium through playwright-core): a user logs in, consents and
// lands on a tiny client page served by the test on 127.0.0.1 (the registered redirect_uri) with code,
// state and iss; another run denies consent and lands with error=access_denied.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { BrowserContext } from 'playwright-core';
import { launchChromium, type ChromiumProfile } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { authorizeQuery } from '../interaction/browserless.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { createUser, PASSWORD, SIGN_IN } from '../helpers/users.js';

/** The test client: one page that shows what came back in its query. */
async function startClientPage(): Promise<{ server: Server; redirectUri: string }> {
  const server = createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://client').searchParams;
    const rows = [...query].map(
      ([k, v]) => `<tr><th>${k.replace(/[<&]/g, '')}</th><td data-name="${k.replace(/[^a-z_]/g, '')}">${v.replace(/[<&]/g, '')}</td></tr>`,
    );
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>Test client</title><h1>Back at the client</h1><table>${rows.join('')}</table>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { server, redirectUri: `http://127.0.0.1:${address.port}/cb` };
}

describe('login and consent in a real browser', () => {
  let t: TestApp;
  let clientPage: { server: Server; redirectUri: string };
  let client: Client;
  let user: User;
  let chromiumProfile: ChromiumProfile | undefined;
  let context: BrowserContext;
  before(async () => {
    t = await startTestApp();
    clientPage = await startClientPage();
    client = (await createClient(t.core.db, t.core.clock, { name: 'Browser Test Shop', skipConsent: false, redirectUris: [clientPage.redirectUri] })).client;
    user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    chromiumProfile = await launchChromium();
    context = chromiumProfile.context;
  });
  after(async () => {
    await chromiumProfile?.close();
    await new Promise((resolve) => clientPage.server.close(resolve));
    await t.close();
  });

  async function runFlow(decision: 'Allow' | 'Deny', state: string, prompt?: string): Promise<URL> {
    await context.clearCookies();
    const page = await context.newPage();
    try {
      await page.goto(t.url + authorizeQuery(client.id, clientPage.redirectUri, { state, scope: 'openid profile email', prompt }));
      await page.fill('input[name="username"]', user.username);
      await page.fill('input[name="password"]', PASSWORD);
      await page.click('button[type="submit"]');
      await page.waitForSelector('button[name="decision"]');
      assert.match(await page.content(), /Browser Test Shop/);
      assert.match(await page.content(), /Your email address/);
      await page.click(`button[name="decision"][value="${decision.toLowerCase()}"]`);
      await page.waitForURL((url) => url.href.startsWith(clientPage.redirectUri));
      await page.waitForSelector('h1');
      assert.equal(await page.textContent('h1'), 'Back at the client');
      return new URL(page.url());
    } finally {
      await page.close();
    }
  }

  test('a real browser logs in, consents and lands on the client with code, state and iss', async () => {
    const landed = await runFlow('Allow', 'browser-state-1');
    assert.match(landed.searchParams.get('code') ?? '', /^[A-Za-z0-9_-]{43,}$/);
    assert.equal(landed.searchParams.get('state'), 'browser-state-1');
    assert.equal(landed.searchParams.get('iss'), t.url);
    assert.equal(landed.searchParams.get('error'), null);
  });

  test('a real browser that denies consent lands on the client with error=access_denied', async () => {
    const landed = await runFlow('Deny', 'browser-state-2', 'consent');
    assert.equal(landed.searchParams.get('error'), 'access_denied');
    assert.equal(landed.searchParams.get('state'), 'browser-state-2');
    assert.equal(landed.searchParams.get('iss'), t.url);
    assert.equal(landed.searchParams.get('code'), null);
  });
});
