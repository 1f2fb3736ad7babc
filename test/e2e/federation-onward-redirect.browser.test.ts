// A relying party on another origin whose redirect_uri redirects on to a third origin — a broker handing the
// code to its own application — after a federated sign-in, in Chromium (which applies CSP form-action to every
// redirect that follows a form submission, CSP3 §6.4.1) against a REAL upstream (node-oidc-provider). The
// callback and the link confirmation page answer with our hand-over page, so the chain that reaches the
// relying party starts with a navigation of ours, not with a form: the broker's onward redirect is not
// checked against any form-action, and the link page's own form-action stays 'self'. Each test is named after its rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type RequestListener, type Server } from 'node:http';
import { authorizeQuery } from '../interaction/browserless.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { createUser, PASSWORD } from '../helpers/users.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { startFederationWorld, type FederationWorld } from './federation-world.js';

async function listen(handler: RequestListener): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

describe('a relying party that redirects on to another origin, after a federated sign-in', () => {
  let w: FederationWorld;
  let upstream: IdentityProvider;
  let client: Client;
  let app: { server: Server; origin: string };
  let broker: { server: Server; origin: string };

  before(async () => {
    w = await startFederationWorld();
    upstream = await w.addProvider({ slug: 'upstream', name: 'Upstream' });
    app = await listen((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><title>App</title><h1>At the application</h1><p id="path">${(request.url ?? '').replace(/[<&]/g, '')}</p>`);
    });
    // The broker's callback: takes the code and sends the browser on to its application (another origin).
    broker = await listen((request, response) => {
      const code = new URL(request.url ?? '/', 'http://broker').searchParams.get('code') ? 'yes' : 'no';
      response.writeHead(302, { location: `${app.origin}/landed?had_code=${code}` });
      response.end();
    });
    client = (await createClient(w.t.core.db, w.t.core.clock, { name: 'Broker', redirectUris: [`${broker.origin}/cb`] })).client;
  });
  after(async () => {
    await w?.close();
    await new Promise((resolve) => app?.server.close(resolve));
    await new Promise((resolve) => broker?.server.close(resolve));
  });

  const atApplication = (url: URL) => url.origin === app.origin;

  test("after a linked account's federated sign-in, the broker's onward redirect reaches its application (the callback hands over with a page)", async () => {
    const user = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD });
    await w.t.core.db
      .insertInto('federated_identities')
      .values({ provider_id: upstream.id, subject: 'onward-linked', user_id: user.id, email: null })
      .execute();
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    w.upstream.next = { sub: 'onward-linked' };
    await page.goto(w.t.url + authorizeQuery(client.id, `${broker.origin}/cb`, { scope: 'openid' }));
    await page.click('text=Continue with Upstream');
    await page.waitForURL(atApplication);
    assert.equal(await page.textContent('#path'), '/landed?had_code=yes');
    await page.close();
  });

  test("after the link confirmation page, the broker's onward redirect reaches its application: its POST hands over with a page, and its form-action stays 'self'", async () => {
    await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD, profile: { email: 'onward@example.org', email_verified: true } });
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    w.upstream.next = { sub: 'onward-proved', email: 'onward@example.org', email_verified: true };
    await page.goto(w.t.url + authorizeQuery(client.id, `${broker.origin}/cb`, { scope: 'openid' }));
    const linkPage = page.waitForResponse((r) => r.url().endsWith('/link') && r.request().method() === 'GET');
    await page.click('text=Continue with Upstream');
    const csp = (await linkPage).headers()['content-security-policy'] ?? '';
    assert.match(csp, /form-action 'self';/, 'the link page allows no form target but its own origin');
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('form[action$="/link"] button[type="submit"]');
    await page.waitForURL(atApplication);
    assert.equal(await page.textContent('#path'), '/landed?had_code=yes');
    await page.close();
  });
});
