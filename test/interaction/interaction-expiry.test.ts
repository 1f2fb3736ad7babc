// A login/consent interruption never dead-ends: when the parked request or the browser session ran out,
// the page offers to start the same authorization again and a way back to the client, which then receives
// an error redirect (error, state, iss) it can act on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { INTERACTION_TTL_SECONDS } from '../../src/interaction/index.js';
import type { TestApp } from '../helpers/app.js';
import { REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, loginAndConsent, openInteraction, submitLogin } from './browserless.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { Browser } from '../helpers/browser.js';
import { startSignInWorld } from './sign-in-world.js';

const links = (html: string) =>
  [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&')).filter((h) => !h.startsWith('/assets/') && h !== '/'); // '/' is the brand header's link home

describe('expired interactions', () => {
  const clock = manualClock();
  let t: TestApp, client: Client, user: User;
  before(async () => ({ t, client, user } = await startSignInWorld({ skipConsent: true, clock })));
  after(() => t.close());

  test('an expired interaction shows a page that restarts the flow or returns to the client with an error', async () => {
    const browser = new Browser(t.url);
    const { path } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    clock.advance((INTERACTION_TTL_SECONDS + 1) * 1000);
    const response = await browser.get(path);
    assert.equal(response.status, 400);
    const [restart, back] = links(await response.text());
    assert.ok(restart?.startsWith('/authorize?'), restart);
    const returned = new URL(back!);
    assert.equal(returned.origin + returned.pathname, REDIRECT_URI);
    assert.equal(returned.searchParams.get('error'), 'access_denied');
    assert.equal(returned.searchParams.get('state'), 'state-123');
    assert.equal(returned.searchParams.get('iss'), t.url);

    const resumed = await loginAndConsent(browser, restart!, user);
    assert.ok(resumed.searchParams.get('code'), 'starting again completes the flow');
    assert.equal(resumed.searchParams.get('state'), 'state-123');
  });

  test('a login POST to an expired interaction is not processed: 303 to the page that explains', async () => {
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    clock.advance((INTERACTION_TTL_SECONDS + 1) * 1000);
    const response = await submitLogin(browser, form, user.username);
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), path);
  });

  test('a browser that lost its session cookie mid-flow gets the restart page, not a dead end', async () => {
    const browser = new Browser(t.url);
    const { path } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    browser.cookies.clear();
    const response = await browser.get(path);
    assert.equal(response.status, 400);
    const [restart] = links(await response.text());
    assert.ok(restart?.startsWith('/authorize?'));
  });

  test('an interaction opened in another browser is not usable there (bound to its session)', async () => {
    const owner = new Browser(t.url);
    const { form, path } = await openInteraction(owner, authorizeQuery(client.id, REDIRECT_URI));
    const other = new Browser(t.url);
    await other.get(authorizeQuery(client.id, REDIRECT_URI));
    const response = await submitLogin(other, form, user.username);
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), path);
  });

  test('an unknown interaction id gets an error page', async () => {
    const response = await fetch(`${t.url}/interaction/${'A'.repeat(43)}`);
    assert.equal(response.status, 400);
    assert.match(await response.text(), /not valid/);
    const malformed = await fetch(`${t.url}/interaction/${encodeURIComponent("x' or 1=1")}`);
    assert.equal(malformed.status, 400);
    assert.match(malformed.headers.get('content-type') ?? '', /^text\/html/);
    await malformed.body?.cancel();
  });
});
