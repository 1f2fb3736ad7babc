// OIDC Core 3.1.2.1 prompt and max_age, 3.1.2.6 errors without UI: prompt=none never shows a page;
// prompt=login and an elapsed max_age (max_age=0 ≡ prompt=login) ask for the password again and the new
// code carries a later auth_time; remembered consent, skip-consent clients and prompt=consent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { sha256 } from '../../src/crypto/random.js';
import { authorizationCodesRepository } from '../../src/storage/repositories/authorization-codes-repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, loginAndConsent, openInteraction, submitLogin } from './browserless.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { Browser } from '../helpers/browser.js';
import { createUser, SIGN_IN } from '../helpers/users.js';
import { startSignInWorld } from './sign-in-world.js';
import { clientAnswer } from '../helpers/client-answer.js';

describe('prompt, max_age and remembered consent', () => {
  const clock = manualClock();
  let t: TestApp;
  let consenting: Client;
  let firstParty: Client;
  let user: User;
  before(async () => {
    t = await startTestApp({ clock });
    consenting = (await createClient(t.core.db, t.core.clock, { skipConsent: false })).client;
    firstParty = (await createClient(t.core.db, t.core.clock, { skipConsent: true })).client;
    user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  });
  after(() => t.close());

  const authTimeOf = async (location: URL) => {
    const code = location.searchParams.get('code');
    assert.ok(code, `no code in ${location.href}`);
    const stored = await authorizationCodesRepository(t.core.db, t.core.clock).find(sha256(code));
    return Math.floor(stored!.authTime.getTime() / 1000);
  };
  const go = async (browser: Browser, client: Client, extra: Record<string, string> = {}) => browser.get(authorizeQuery(client.id, REDIRECT_URI, extra));
  const locationOf = (response: Response) => new URL(response.headers.get('location')!, t.url);

  test('prompt=none without a session redirects error=login_required, no UI', async () => {
    const response = await go(new Browser(t.url), firstParty, { prompt: 'none' });
    assert.equal(response.status, 303);
    const location = locationOf(response);
    assert.equal(location.origin + location.pathname, REDIRECT_URI);
    assert.equal(location.searchParams.get('error'), 'login_required');
    assert.equal(location.searchParams.get('state'), 'state-123');
    assert.equal(location.searchParams.get('iss'), t.url);
  });

  test('prompt=none with a session but no consent redirects error=consent_required', async () => {
    const browser = new Browser(t.url);
    await loginAndConsent(browser, authorizeQuery(firstParty.id, REDIRECT_URI), user);
    const location = locationOf(await go(browser, consenting, { prompt: 'none' }));
    assert.equal(location.searchParams.get('error'), 'consent_required');
    assert.equal(location.searchParams.get('code'), null);
  });

  test('consent is remembered per user, client and scope set; a wider scope set asks again', async () => {
    const browser = new Browser(t.url);
    await loginAndConsent(browser, authorizeQuery(consenting.id, REDIRECT_URI, { scope: 'openid profile' }), user);
    const again = locationOf(await go(browser, consenting, { scope: 'openid profile', prompt: 'none' }));
    assert.ok(again.searchParams.get('code'), 'remembered consent answers at once');
    const narrower = locationOf(await go(browser, consenting, { scope: 'openid', prompt: 'none' }));
    assert.ok(narrower.searchParams.get('code'));
    const wider = locationOf(await go(browser, consenting, { scope: 'openid profile email', prompt: 'none' }));
    assert.equal(wider.searchParams.get('error'), 'consent_required');
  });

  test('prompt=consent forces the consent page even when consent is remembered', async () => {
    const browser = new Browser(t.url);
    await loginAndConsent(browser, authorizeQuery(consenting.id, REDIRECT_URI), user);
    const response = await go(browser, consenting, { prompt: 'consent' });
    const page = await (await browser.get(response.headers.get('location')!)).text();
    assert.match(page, /name="decision" value="allow"/);
  });

  test('skip-consent (first-party) clients never show the consent page', async () => {
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(firstParty.id, REDIRECT_URI, { prompt: 'consent' }));
    const response = await submitLogin(browser, form, user.username);
    assert.ok((await clientAnswer(response)).searchParams.get('code'), 'login goes straight back to the client');
  });

  test('prompt=login re-authenticates an active session and the code carries a later auth_time', async () => {
    const browser = new Browser(t.url);
    const first = await authTimeOf(await loginAndConsent(browser, authorizeQuery(firstParty.id, REDIRECT_URI), user));
    clock.advance(5_000);
    const response = await go(browser, firstParty, { prompt: 'login' });
    assert.match(response.headers.get('location')!, /^\/interaction\//, 'the password is asked again');
    const second = await authTimeOf(await loginAndConsent(browser, authorizeQuery(firstParty.id, REDIRECT_URI, { prompt: 'login' }), user));
    assert.ok(second > first, `${second} > ${first}`);
  });

  test('max_age=0 behaves as prompt=login', async () => {
    const browser = new Browser(t.url);
    await loginAndConsent(browser, authorizeQuery(firstParty.id, REDIRECT_URI), user);
    const response = await go(browser, firstParty, { max_age: '0' });
    assert.match(response.headers.get('location')!, /^\/interaction\//);
  });

  test('max_age elapsed asks for the password again; inside the window auth_time is unchanged', async () => {
    const browser = new Browser(t.url);
    const first = await authTimeOf(await loginAndConsent(browser, authorizeQuery(firstParty.id, REDIRECT_URI), user));
    clock.advance(30_000);
    const inside = await authTimeOf(locationOf(await go(browser, firstParty, { max_age: '10000' })));
    assert.equal(inside, first);
    const elapsed = await go(browser, firstParty, { max_age: '20' });
    assert.match(elapsed.headers.get('location')!, /^\/interaction\//);
    const later = await authTimeOf(await loginAndConsent(browser, authorizeQuery(firstParty.id, REDIRECT_URI, { max_age: '20' }), user));
    assert.ok(later > first);
  });

  test('prompt=none with an elapsed max_age is login_required', async () => {
    const browser = new Browser(t.url);
    await loginAndConsent(browser, authorizeQuery(firstParty.id, REDIRECT_URI), user);
    clock.advance(60_000);
    assert.equal(locationOf(await go(browser, firstParty, { prompt: 'none', max_age: '30' })).searchParams.get('error'), 'login_required');
  });
});

describe('id_token_hint at /authorize', () => {
  let t: TestApp, client: Client, user: User;
  before(async () => ({ t, client, user } = await startSignInWorld({ skipConsent: true })));
  after(() => t.close());

  const hint = (sub: string, aud: string) => {
    const now = Math.floor(t.core.clock.now() / 1000);
    return t.core.keys.sign({ iss: t.url, sub, aud, iat: now, exp: now + 600 }, { alg: 'RS256', typ: 'JWT' });
  };
  const errorOf = (response: Response) => new URL(response.headers.get('location')!, t.url).searchParams.get('error');

  test('prompt=none with an id_token_hint for the signed-in user succeeds without UI', async () => {
    const browser = new Browser(t.url);
    await loginAndConsent(browser, authorizeQuery(client.id, REDIRECT_URI), user);
    const response = await browser.get(authorizeQuery(client.id, REDIRECT_URI, { prompt: 'none', id_token_hint: await hint(user.id, client.id) }));
    assert.ok(new URL(response.headers.get('location')!).searchParams.get('code'));
  });

  test('prompt=none with an id_token_hint for another user is login_required', async () => {
    const browser = new Browser(t.url);
    await loginAndConsent(browser, authorizeQuery(client.id, REDIRECT_URI), user);
    const response = await browser.get(authorizeQuery(client.id, REDIRECT_URI, { prompt: 'none', id_token_hint: await hint('someone-else', client.id) }));
    assert.equal(errorOf(response), 'login_required');
  });

  test('an id_token_hint that is not ours or not for this client is invalid_request', async () => {
    const browser = new Browser(t.url);
    for (const bad of ['not.a.jwt', await hint(user.id, 'another-client')]) {
      const response = await browser.get(authorizeQuery(client.id, REDIRECT_URI, { id_token_hint: bad }));
      assert.equal(errorOf(response), 'invalid_request');
    }
  });
});
