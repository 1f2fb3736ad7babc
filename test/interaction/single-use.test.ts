// An interaction is single use: parallel submissions of one consent form (double clicks, replays) yield
// exactly one code; the others are sent back to the interaction page, which no longer exists.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.js';
import { REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, openInteraction, submitLogin } from './browserless.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { startSignInWorld } from './sign-in-world.js';
import { clientAnswer } from '../helpers/client-answer.js';

describe('single-use interactions', () => {
  let t: TestApp, client: Client, user: User;
  before(async () => ({ t, client, user } = await startSignInWorld({ skipConsent: false })));
  after(() => t.close());

  test('10 parallel consent approvals of one interaction issue exactly one code', async () => {
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI, { prompt: 'consent' }));
    await submitLogin(browser, form, user.username);
    const consent = parseForm(await (await browser.get(path)).text());
    const responses = await Promise.all(Array.from({ length: 10 }, () => browser.post(consent.action, { ...consent.hidden, decision: 'allow' })));
    // The winner is answered with the hand-over page (200); every other answer is a 303 of ours or a 400.
    const toClient = responses.filter((r) => r.status === 200);
    assert.equal(toClient.length, 1, responses.map((r) => `${r.status} ${r.headers.get('location')}`).join('\n'));
    const answer = await clientAnswer(toClient[0]!);
    assert.ok(answer.href.startsWith(REDIRECT_URI));
    assert.ok(answer.searchParams.get('code'));
    // The losers see the interaction gone: back to its page (303) or its "not valid" page (400).
    for (const r of responses.filter((x) => x !== toClient[0])) {
      assert.ok((r.status === 303 && r.headers.get('location') === path) || r.status === 400, `${r.status}`);
      await r.body?.cancel();
    }
    const replay = await browser.get(path);
    assert.equal(replay.status, 400, 'a used interaction is gone');
    await replay.body?.cancel();
  });

  test('a consent replayed after deny issues no code', async () => {
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI, { prompt: 'consent' }));
    await submitLogin(browser, form, user.username);
    const consent = parseForm(await (await browser.get(path)).text());
    const denied = await browser.post(consent.action, { ...consent.hidden, decision: 'deny' });
    assert.equal((await clientAnswer(denied)).searchParams.get('error'), 'access_denied');
    const approved = await browser.post(consent.action, { ...consent.hidden, decision: 'allow' });
    assert.equal(approved.status, 400);
    assert.equal(approved.headers.get('location'), null);
  });
});
