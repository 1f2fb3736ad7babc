// A corporate NAT puts every employee behind one address. With default settings the per-address limits of
// the login pages must let 300 complete logins a minute through, while failures from that address stay
// strictly limited (docs/rate-limits.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from '../helpers/app.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, openInteraction, submitLogin } from './browserless.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { createUser, PASSWORD, SIGN_IN } from '../helpers/users.js';
import { clientAnswer } from '../helpers/client-answer.js';

const LOGINS = 300;
const AT_ONCE = 12;

/** The remaining count of the page budget on an answer (draft-ietf-httpapi-ratelimit-headers). */
const remaining = (response: Response): number => Number(/^"pages";r=(\d+);/.exec(response.headers.get('ratelimit') ?? '')?.[1] ?? NaN);

test('with default settings at least 300 complete logins a minute from one address are not refused, while its failures stay limited', async () => {
  const t = await startTestApp();
  try {
    const { client } = await createClient(t.core.db, t.core.clock);
    const users = await Promise.all(Array.from({ length: 30 }, () => createUser(t.core.db, t.core.clock, SIGN_IN)));
    const counted: number[] = [];
    const login = async (i: number): Promise<number> => {
      const browser = new Browser(t.url);
      const start = await browser.get(authorizeQuery(client.id, REDIRECT_URI));
      counted.push(remaining(start));
      if (start.status !== 303) return start.status;
      const page = await browser.get(start.headers.get('location')!);
      counted.push(remaining(page));
      if (page.status !== 200) return page.status;
      const done = await submitLogin(browser, parseForm(await page.text()), users[i % users.length]!.username, PASSWORD);
      counted.push(remaining(done));
      // Completed: the client is answered with the hand-over page (test/helpers/client-answer.ts).
      if (done.status !== 200) return done.status;
      return (await clientAnswer(done)).href.startsWith(REDIRECT_URI) ? 200 : -1;
    };
    const statuses: number[] = [];
    for (let i = 0; i < LOGINS; i += AT_ONCE) statuses.push(...(await Promise.all(Array.from({ length: AT_ONCE }, (_, k) => login(i + k)))));
    assert.deepEqual(
      statuses.filter((s) => s !== 200),
      [],
      `${statuses.filter((s) => s === 200).length} of ${LOGINS} logins completed`,
    );
    // All of them within one rate-limit window (a slow machine could spread them over two and prove nothing):
    // the remaining count fell by one for every page request, without a reset in between.
    assert.ok(counted.every(Number.isFinite), 'every page answer carries the page budget');
    assert.equal(
      Math.max(...counted) - Math.min(...counted) + 1,
      counted.length,
      'the logins did not fit in one minute on this machine; the run proves nothing',
    );

    // Failures from the same address are still limited per (username, address) and per address for unknown names.
    const fail = async (username: string) => {
      const browser = new Browser(t.url);
      const { form } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
      return (await submitLogin(browser, form, username, 'not-the-password')).status;
    };
    // At once: sequential attempts on a loaded machine could outlast the one-minute window and prove nothing.
    const attempts = (username: (i: number) => string) =>
      Promise.all(Array.from({ length: t.config.RATE_LIMIT_LOGIN_FAILURES + 1 }, (_, i) => fail(username(i))));
    const guessed = await attempts(() => users[0]!.username);
    assert.deepEqual(
      [guessed.filter((s) => s === 303).length, guessed.filter((s) => s === 429).length],
      [t.config.RATE_LIMIT_LOGIN_FAILURES, 1],
      `answers: ${guessed.join(' ')}`,
    );
    const invented = await attempts((i) => `nobody-${i}`);
    assert.deepEqual(
      [invented.filter((s) => s === 303).length, invented.filter((s) => s === 429).length],
      [t.config.RATE_LIMIT_LOGIN_FAILURES, 1],
      `answers: ${invented.join(' ')}`,
    );
  } finally {
    await t.close();
  }
});
