// S3 (docs/security/account-factors.md): no unauthenticated request to /account creates server-side state
// outside a per-address budget. The sign-in form's CSRF token lives in a cookie of its own (pre-session.ts);
// the browser session is created at sign-in (or once the password was right, to wait for the second factor).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { SIGN_IN, createUser } from '../helpers/users.js';
import { AccountBrowser } from './account-browser.js';

const PAGE_BUDGET = 40;

describe('no server-side state before sign-in on /account', () => {
  let t: TestApp;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock, env: { RATE_LIMIT_PAGES: String(PAGE_BUDGET), TRUST_PROXY: '127.0.0.1' } });
  });
  after(() => t.close());

  const sessionRows = async () =>
    Number(
      (
        await t.core.db
          .selectFrom('browser_sessions')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const challengeRows = async () =>
    Number(
      (
        await t.core.db
          .selectFrom('webauthn_challenges')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('an unauthenticated request creates no session row: 30 anonymous GET /account, their forms posted with a wrong password or nothing, write 0 rows', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const before = await sessionRows();
    for (let i = 0; i < 30; i++) {
      const from = { 'x-forwarded-for': `198.51.100.${i}` };
      const browser = new Browser(t.url);
      const page = await browser.get('/account', from);
      assert.equal(page.status, 200);
      const form = parseForm(await page.text());
      assert.equal(form.action, '/account/login');
      if (i % 3 === 0)
        assert.equal(
          (await browser.post(form.action, { ...form.hidden, username: user.username, password: 'wrong' }, from)).headers.get('location'),
          '/account?failed=1',
        );
      if (i % 3 === 1) await browser.post('/account/totp', { ...form.hidden }, from);
    }
    assert.equal(await sessionRows(), before, 'no browser_sessions row was written');

    const signed = new AccountBrowser(t);
    await signed.password(user.username);
    await signed.page();
    assert.equal(await sessionRows(), before + 1, 'the session is created at sign-in');
  });

  test('a pre-session form posted without its cookie, or with another browser’s token, is refused (CSRF), and signs nobody in', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const mine = new Browser(t.url);
    const form = parseForm(await (await mine.get('/account', { 'x-forwarded-for': '203.0.113.7' })).text());
    const other = new Browser(t.url);
    await other.get('/account', { 'x-forwarded-for': '203.0.113.8' });
    const forged = await other.post(
      form.action,
      { ...form.hidden, username: user.username, password: 'correct horse battery staple' },
      { 'x-forwarded-for': '203.0.113.8' },
    );
    assert.equal(forged.status, 403);
    const bare = await fetch(`${t.url}${form.action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.9' },
      body: new URLSearchParams({ ...form.hidden, username: user.username, password: 'correct horse battery staple' }).toString(),
    });
    assert.equal(bare.status, 303);
    assert.equal(bare.headers.getSetCookie().length, 0, 'no session cookie: nobody was signed in');
  });

  test('passkey options without a session create challenges only within the per-address page budget', async () => {
    const from = { 'x-forwarded-for': '192.0.2.44' };
    const before = await challengeRows();
    const sessionsBefore = await sessionRows();
    const statuses: number[] = [];
    // A fresh pre-session each time (a new token, so a new challenge binding): page and options both draw on the budget.
    for (let i = 0; i < PAGE_BUDGET; i++) {
      const browser = new Browser(t.url);
      const page = await browser.get('/account', from);
      if (page.status !== 200) {
        statuses.push(page.status);
        continue;
      }
      const csrf = parseForm(await page.text()).hidden.csrf!;
      statuses.push((await browser.postJson('/account/passkey/options', { csrf }, from)).status);
    }
    const created = (await challengeRows()) - before;
    assert.ok(statuses.includes(429), 'the page budget refuses past its limit');
    assert.ok(created > 0 && created <= PAGE_BUDGET / 2, `${created} challenges for ${statuses.length} attempts`);
    assert.equal(await sessionRows(), sessionsBefore, 'and no session row');
  });
});
