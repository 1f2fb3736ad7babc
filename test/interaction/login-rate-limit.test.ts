// Password brute force (RATE_LIMIT_LOGIN_FAILURES, docs/rate-limits.md): failures are counted per
// (username, address), and per address for unknown usernames; each attempt is charged before the password is
// verified and refunded on success. A used-up pair answers a 429 HTML page with Retry-After, even for the
// right password — but only to that pair: nobody else, and not the same user from elsewhere, is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, openInteraction, submitLogin } from './browserless.js';
import { Browser } from '../helpers/browser.js';
import { createUser, SIGN_IN } from '../helpers/users.js';
import { handOverTarget } from '../helpers/client-answer.js';

const LIMIT = 3;

async function withApp(env: Record<string, string>, run: (t: TestApp, clientId: string) => Promise<void>): Promise<void> {
  const t = await startTestApp({ env: { RATE_LIMIT_LOGIN_FAILURES: String(LIMIT), ...env } });
  try {
    const { client } = await createClient(t.core.db, t.core.clock);
    await run(t, client.id);
  } finally {
    await t.close();
  }
}

/** One login attempt on a fresh interaction; `from` sets X-Forwarded-For (honoured only with TRUST_PROXY). */
async function attempt(
  t: TestApp,
  clientId: string,
  username: string,
  password: string,
  from?: string,
): Promise<{ status: number; location: string | null; contentType: string | null; retryAfter: string | null; body: string }> {
  const headers: Record<string, string> = from ? { 'x-forwarded-for': from } : {};
  const browser = new Browser(t.url);
  const { form } = await openInteraction(browser, authorizeQuery(clientId, REDIRECT_URI));
  const response = await submitLogin(browser, form, username, password, headers);
  const text = await response.text();
  // Signed in: the client is answered with the hand-over page (test/helpers/client-answer.ts); otherwise a 303 of ours.
  const location = response.status === 200 ? handOverTarget(response, text).href : response.headers.get('location');
  return {
    status: response.status,
    // The interaction id differs per attempt; only the outcome matters.
    location: location === null ? null : location.replace(/^\/interaction\/[^/?]+/, '/interaction/ID'),
    contentType: response.headers.get('content-type'),
    retryAfter: response.headers.get('retry-after'),
    body: text.replace(/[0-9a-f-]{16,}/gi, 'TRACE'),
  };
}

test('failed logins are limited per (username, address): past the limit even the right password from that address gets a 429 HTML page with Retry-After', async () => {
  await withApp({}, async (t, clientId) => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    for (let i = 0; i < LIMIT; i++) {
      const failed = await attempt(t, clientId, user.username, `wrong-${i}`);
      assert.equal(failed.status, 303);
      assert.equal(failed.location, '/interaction/ID?failed=1');
    }
    const blocked = await attempt(t, clientId, user.username.toUpperCase(), 'correct horse battery staple');
    assert.equal(blocked.status, 429, 'the username is counted case-insensitively, like the lookup');
    assert.match(blocked.contentType ?? '', /^text\/html/);
    assert.ok(Number(blocked.retryAfter) >= 1);
    assert.equal((await attempt(t, clientId, user.username, 'correct horse battery staple')).status, 429);
  });
});

test('an unknown username is throttled identically to a known one: the same statuses, redirects and 429 page', async () => {
  // Each username from its own address (TRUST_PROXY) so only the per-username budget is in play.
  await withApp({ TRUST_PROXY: '127.0.0.1' }, async (t, clientId) => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const run = async (username: string, ip: string) => {
      const answers = [];
      for (let i = 0; i <= LIMIT; i++) {
        const { status, location, contentType, retryAfter, body } = await attempt(t, clientId, username, `wrong-${i}`, ip);
        answers.push({ status, location, contentType, retryAfterPresent: retryAfter !== null, body: status === 429 ? body : '' });
      }
      return answers;
    };
    const known = await run(user.username, '198.51.100.1');
    const unknown = await run('nobody-by-this-name', '198.51.100.2');
    assert.deepEqual(unknown, known);
    assert.deepEqual(
      known.map((a) => a.status),
      [303, 303, 303, 429],
    );
  });
});

/** Opens `n` login forms (each on its own interaction and browser), ready to be submitted at once. */
async function openForms(t: TestApp, clientId: string, n: number) {
  const forms = [];
  for (let i = 0; i < n; i++) {
    const browser = new Browser(t.url);
    forms.push({ browser, form: (await openInteraction(browser, authorizeQuery(clientId, REDIRECT_URI))).form });
  }
  return forms;
}

const outcomes = (responses: Response[]) => ({
  evaluatedAndFailed: responses.filter((r) => r.status === 303 && /failed=1$/.test(r.headers.get('location') ?? '')).length,
  refused: responses.filter((r) => r.status === 429).length,
});

test('40 parallel wrong passwords for one username from one address: at most the budget is evaluated, the rest are refused with 429', async () => {
  await withApp({ RATE_LIMIT_LOGIN_FAILURES: '10' }, async (t, clientId) => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const forms = await openForms(t, clientId, 40);
    const responses = await Promise.all(forms.map(({ browser, form }, i) => submitLogin(browser, form, user.username, `wrong-${i}`)));
    const { evaluatedAndFailed, refused } = outcomes(responses);
    assert.ok(evaluatedAndFailed <= 10, `${evaluatedAndFailed} wrong passwords were evaluated, the budget is 10`);
    assert.equal(evaluatedAndFailed + refused, 40);
  });
});

test('40 parallel logins with unknown usernames from one address: at most the address budget is evaluated, the rest are refused with 429', async () => {
  await withApp({ RATE_LIMIT_LOGIN_FAILURES: '10' }, async (t, clientId) => {
    const forms = await openForms(t, clientId, 40);
    const responses = await Promise.all(forms.map(({ browser, form }, i) => submitLogin(browser, form, `nobody-${i}`, 'guess')));
    const { evaluatedAndFailed, refused } = outcomes(responses);
    assert.ok(evaluatedAndFailed <= 10, `${evaluatedAndFailed} unknown usernames were evaluated, the budget is 10`);
    assert.equal(evaluatedAndFailed + refused, 40);
  });
});

test('unknown usernames count against the address: past its budget more unknown names are refused, while a known user from that address still logs in', async () => {
  await withApp({}, async (t, clientId) => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    for (let i = 0; i < LIMIT; i++) assert.equal((await attempt(t, clientId, `guess-${i}`, 'guess')).status, 303);
    assert.equal((await attempt(t, clientId, 'guess-more', 'guess')).status, 429);
    const ok = await attempt(t, clientId, user.username, 'correct horse battery staple');
    assert.equal(ok.status, 200);
    assert.ok(ok.location?.startsWith(REDIRECT_URI), 'the known user reaches the client (the hand-over page)');
  });
});

test('a per-username lockout never refuses the right password from an address that has not failed', async () => {
  await withApp({ TRUST_PROXY: '127.0.0.1' }, async (t, clientId) => {
    const victim = await createUser(t.core.db, t.core.clock, SIGN_IN);
    for (let a = 0; a < 3; a++) {
      for (let i = 0; i < LIMIT; i++) await attempt(t, clientId, victim.username, 'guess', `203.0.113.${a}`);
      assert.equal(
        (await attempt(t, clientId, victim.username, 'correct horse battery staple', `203.0.113.${a}`)).status,
        429,
        'the failing address is locked',
      );
    }
    const ok = await attempt(t, clientId, victim.username, 'correct horse battery staple', '203.0.113.200');
    assert.equal(ok.status, 200);
    assert.ok(ok.location?.startsWith(REDIRECT_URI), 'the owner, from an address that has not failed, reaches the client (the hand-over page)');
  });
});

test('an IPv6 /64 is one address for the failure budget: a guesser cycling through the addresses of its /64 is refused, another /64 is not', async () => {
  // One host holds a whole /64 (SLAAC, privacy addresses): counting per IPv6 address would be no budget at all.
  await withApp({ TRUST_PROXY: '127.0.0.1' }, async (t, clientId) => {
    const victim = await createUser(t.core.db, t.core.clock, SIGN_IN);
    for (let i = 0; i < LIMIT; i++) assert.equal((await attempt(t, clientId, victim.username, `guess-${i}`, `2001:db8:7:7::${i + 1}`)).status, 303);
    assert.equal((await attempt(t, clientId, victim.username, 'guess-next', '2001:db8:7:7:ffff:1:2:3')).status, 429, 'a fresh address of the same /64');
    assert.equal((await attempt(t, clientId, 'nobody-at-all', 'guess', '2001:db8:7:7::99')).status, 303, 'unknown names have their own budget');
    const elsewhere = await attempt(t, clientId, victim.username, 'correct horse battery staple', '2001:db8:7:8::1');
    assert.equal(elsewhere.status, 200, 'the owner from another /64 signs in');
  });
});

test("another user's right password from the same address is never refused because of one user's failures (shared NAT)", async () => {
  await withApp({}, async (t, clientId) => {
    const clumsy = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const colleague = await createUser(t.core.db, t.core.clock, SIGN_IN);
    for (let i = 0; i <= LIMIT; i++) await attempt(t, clientId, clumsy.username, `wrong-${i}`);
    assert.equal((await attempt(t, clientId, clumsy.username, 'correct horse battery staple')).status, 429);
    const ok = await attempt(t, clientId, colleague.username, 'correct horse battery staple');
    assert.equal(ok.status, 200);
    assert.ok(ok.location?.startsWith(REDIRECT_URI), 'the colleague behind the same address reaches the client (the hand-over page)');
  });
});

test('a spoofed X-Forwarded-For never resets the login failure limit when no proxy is trusted', async () => {
  await withApp({}, async (t, clientId) => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    for (let i = 0; i < LIMIT; i++) await attempt(t, clientId, user.username, 'guess', `203.0.113.${i}`);
    assert.equal((await attempt(t, clientId, user.username, 'correct horse battery staple', '192.0.2.1')).status, 429);
  });
});
