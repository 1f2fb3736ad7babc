// The answer to the client (src/interaction/answer.ts): after a form of ours it is the hand-over page, and
// only the validated redirect URI with the response goes into it, HTML-escaped, with no script; after a
// navigation (a GET) and after the client's own POST /authorize it stays a 303. Each test is named after its rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.js';
import { Browser } from '../helpers/browser.js';
import { clientAnswer } from '../helpers/client-answer.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { RFC7636 } from '../helpers/pkce.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { authorizeQuery, openInteraction, submitLogin } from './browserless.js';
import { startSignInWorld } from './sign-in-world.js';

// A registered redirect_uri whose own query holds characters HTML gives meaning to.
const ODD_REDIRECT = 'https://odd.example/cb?a=1&b=%22x%22';
// A state crafted to break out of an attribute or the refresh's url= if it were written in unescaped.
const HOSTILE_STATE = `"><script>alert(1)</script>'; url=https://evil.example/`;

describe('the answer to the client', () => {
  let t: TestApp, user: User, odd: Client;
  before(async () => {
    ({ t, user } = await startSignInWorld({ skipConsent: true }));
    odd = (await createClient(t.core.db, t.core.clock, { redirectUris: [ODD_REDIRECT] })).client;
  });
  after(() => t.close());

  test('after the password form the client is answered with the hand-over page, which holds only the validated redirect URI and the response, HTML-escaped, and no script', async () => {
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(odd.id, ODD_REDIRECT, { state: HOSTILE_STATE }));
    const response = await submitLogin(browser, form, user.username);
    const html = await response.clone().text();
    // Exactly the hand-over page (status, headers, one refresh and one link to the same place), going to the client.
    const target = await clientAnswer(response, 'hand-over');
    assert.equal(target.href.slice(0, ODD_REDIRECT.length + 1), `${ODD_REDIRECT}&`, 'the registered redirect_uri, its own query kept');
    assert.deepEqual([...target.searchParams.keys()], ['a', 'b', 'code', 'state', 'iss']);
    assert.equal(target.searchParams.get('state'), HOSTILE_STATE, 'the state comes back as it was sent');
    assert.doesNotMatch(html, /<script|evil\.example\/"|alert\(1\)<\/script>/, 'nothing of the request is written into the page unescaped');
    assert.doesNotMatch(html, /"x"/, 'the redirect URI is escaped too');
    assert.doesNotMatch(html, new RegExp(`/interaction/|${form.hidden.csrf}`), 'nothing of the interaction goes into the page');
  });

  test('a navigation (GET) that answers the client at once stays a 303: prompt=none with a session', async () => {
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(odd.id, ODD_REDIRECT));
    await clientAnswer(await submitLogin(browser, form, user.username), 'hand-over');
    const again = await browser.get(authorizeQuery(odd.id, ODD_REDIRECT, { prompt: 'none' }));
    assert.ok((await clientAnswer(again, 'redirect')).searchParams.get('code'), 'a 303 with the code');
  });

  test("the client's own POST /authorize (its form, its form-action) is answered with a 303, not the hand-over page", async () => {
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(odd.id, ODD_REDIRECT));
    await clientAnswer(await submitLogin(browser, form, user.username), 'hand-over');
    const posted = await browser.post('/authorize', {
      response_type: 'code',
      client_id: odd.id,
      redirect_uri: ODD_REDIRECT,
      scope: 'openid',
      state: 'posted',
      code_challenge: RFC7636.challenge,
      code_challenge_method: 'S256',
      prompt: 'none',
    });
    const answer = await clientAnswer(posted, 'redirect');
    assert.equal(answer.searchParams.get('state'), 'posted');
    assert.ok(answer.searchParams.get('code'));
  });
});
