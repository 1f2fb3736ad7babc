// response_mode=form_post end to end in a real browser (Debian's chromium through playwright-core): after
// login and consent, the page's own-origin script submits the form and the test's callback server (the
// registered redirect_uri) receives a POST with code, state and iss — under the page's strict CSP, which a
// CSP violation would make fail. With JavaScript off, the visible button delivers the same POST.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, launchChromium, type ChromiumProfile } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { authorizeQuery } from '../interaction/browserless.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import { createUser, PASSWORD, SIGN_IN } from '../helpers/users.js';

interface Received {
  method: string;
  contentType: string;
  form: URLSearchParams;
  query: URLSearchParams;
}

/** The client's callback: records each request to /cb and answers a small page. */
async function startCallback(): Promise<{ server: Server; redirectUri: string; next(): Promise<Received> }> {
  const waiting: ((r: Received) => void)[] = [];
  const read = (request: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      request
        .setEncoding('utf8')
        .on('data', (chunk: string) => (body += chunk))
        .on('end', () => resolve(body));
    });
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://client');
    if (url.pathname !== '/cb') {
      response.writeHead(404).end();
      return;
    }
    const received = {
      method: request.method ?? '',
      contentType: request.headers['content-type'] ?? '',
      form: new URLSearchParams(await read(request)),
      query: url.searchParams,
    };
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Test client</title><h1>Back at the client</h1>');
    waiting.shift()?.(received);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { server, redirectUri: `http://127.0.0.1:${address.port}/cb`, next: () => new Promise((resolve) => waiting.push(resolve)) };
}

describe('response_mode=form_post in a real browser', () => {
  let t: TestApp;
  let callback: Awaited<ReturnType<typeof startCallback>>;
  let client: Client;
  let chromiumProfile: ChromiumProfile | undefined;
  let context: BrowserContext;
  before(async () => {
    t = await startTestApp();
    callback = await startCallback();
    client = (await createClient(t.core.db, t.core.clock, { name: 'Form Post Shop', skipConsent: false, redirectUris: [callback.redirectUri] })).client;
    chromiumProfile = await launchChromium();
    context = chromiumProfile.context;
  });
  after(async () => {
    await chromiumProfile?.close();
    await new Promise((resolve) => callback.server.close(resolve));
    await t.close();
  });

  async function loginAndAllow(page: Page, state: string): Promise<void> {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    await page.goto(t.url + authorizeQuery(client.id, callback.redirectUri, { state, response_mode: 'form_post' }));
    await page.fill('input[name="username"]', user.username);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForSelector('button[name="decision"]');
    await page.click('button[name="decision"][value="allow"]');
  }

  test('form_post in a real browser: the page submits itself (own-origin script, no CSP violation) and the client receives a POST with code, state and iss', {
    timeout: 60_000,
  }, async () => {
    await context.clearCookies();
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    try {
      const arrived = callback.next();
      await loginAndAllow(page, 'form-post-state-1');
      const received = await arrived;
      assert.equal(received.method, 'POST');
      assert.match(received.contentType, /^application\/x-www-form-urlencoded/);
      assert.match(received.form.get('code') ?? '', /^[A-Za-z0-9_-]{43,}$/);
      assert.equal(received.form.get('state'), 'form-post-state-1');
      assert.equal(received.form.get('iss'), t.url);
      assert.equal([...received.query].length, 0, 'nothing in the query');
      await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
      assert.deepEqual(violations, []);
    } finally {
      await page.close();
    }
  });

  test('form_post without JavaScript: the visible Continue button sends the same POST', { timeout: 60_000 }, async () => {
    const noScript = await launchBrowser();
    try {
      const page = await (await noScript.newContext({ javaScriptEnabled: false })).newPage();
      await loginAndAllow(page, 'form-post-state-2');
      await page.waitForSelector('form[data-auto-submit] button[type="submit"]');
      assert.match((await page.textContent('h1')) ?? '', /Returning to the application/);
      const arrived = callback.next();
      await page.click('form[data-auto-submit] button[type="submit"]');
      const received = await arrived;
      assert.equal(received.method, 'POST');
      assert.equal(received.form.get('state'), 'form-post-state-2');
      assert.match(received.form.get('code') ?? '', /^[A-Za-z0-9_-]{43,}$/);
    } finally {
      await noScript.close();
    }
  });
});
