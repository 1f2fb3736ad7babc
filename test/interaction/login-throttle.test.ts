// DESIGN.md §1: failed logins are limited per username and per IP; past the limit even the right password
// is refused (429 with Retry-After) until the window ends.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, Browser, createUserWithPassword, openInteraction, parseForm, submitLogin } from './browserless.js';
import type { Client } from '../../src/storage/clients-repository.js';
import type { User } from '../../src/storage/users-repository.js';

describe('login throttling', () => {
  let t: TestApp;
  let client: Client;
  let user: User;
  before(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_LOGIN_FAILURES: '3' } });
    client = (await createClient(t.core.db, t.core.clock)).client;
    user = await createUserWithPassword(t.core.db, t.core.clock);
  });
  after(() => t.close());

  test('failed logins are limited: after the limit the right password gets 429 with Retry-After', async () => {
    const browser = new Browser(t.url);
    let { form } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    for (let i = 0; i < 3; i++) {
      const failed = await submitLogin(browser, form, user.username.toUpperCase(), 'wrong');
      assert.equal(failed.status, 303);
      form = parseForm(await (await browser.get(failed.headers.get('location')!)).text());
    }
    const refused = await submitLogin(browser, form, user.username);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.match(refused.headers.get('content-type') ?? '', /^text\/html/);
  });
});
