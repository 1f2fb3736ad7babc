// Signing in over a browser session (src/user-rules/sign-in-session.ts, docs/backchannel-logout.md#sid), with a
// relying party started by the test that receives the back-channel logout tokens and validates them (jose
// jwtVerify against the JWKS, 2.6): the same account signing in again (prompt=login, max_age=0) keeps the
// session's sid, so the sign-out that follows names the sid the RP's first id_token carried; another account
// signing in over it ends the first account's session as a sign-out does (a logout token with its sid,
// session.ended); the cookie value changes at every sign-in all the same (fixation); and two sign-ins
// completing at once in one browser leave one live session and announce the first session's end once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { sql } from 'kysely';
import { sha256 } from '../../src/crypto/random.js';
import { executeCommand } from '../../src/cli/execute.js';
import { PLAIN_HTTP_SESSION_COOKIE } from '../../src/interaction/session/session-cookie.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { NO_LIMITS } from '../helpers/env.js';
import { RFC7636 } from '../helpers/pkce.js';
import { createUser, SIGN_IN } from '../helpers/users.js';
import { authorizeQuery, loginAndConsent, openInteraction, submitLogin } from '../interaction/browserless.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

const REDIRECT_URI = 'https://rp.example/cb';
const SECRET = 'a-relying-party-secret-of-forty-characters';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

let t: TestApp;
let rp: Receiver;
let clientId: string;

before(async () => {
  t = await startTestApp({ env: { ...NO_LIMITS, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
  rp = await startReceiver('/backchannel-logout');
  const client = (await executeCommand(
    [
      'clients',
      'create',
      '--name',
      'Relying party',
      '--type',
      'confidential',
      '--redirect-uri',
      REDIRECT_URI,
      '--grant-types',
      'authorization_code,refresh_token',
      '--scope',
      'openid profile',
      '--skip-consent',
      '--secret',
      SECRET,
      '--backchannel-logout-uri',
      rp.url,
      '--backchannel-logout-session-required',
    ],
    t.core,
  )) as Record<string, unknown>;
  clientId = String(client.client_id);
});
after(async () => {
  await rp.close();
  await t.close();
});

const newUser = () => createUser(t.core.db, t.core.clock, { ...SIGN_IN, username: `sis-${crypto.randomUUID().slice(0, 8)}` });
const sessionCookie = (browser: Browser) => browser.cookies.get(PLAIN_HTTP_SESSION_COOKIE);

/** The id_token of a sign-in (or re-sign-in) of `user` in `browser`, through the pages and the code exchange. */
async function idTokenOf(browser: Browser, user: { username: string }, extra: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const redirect = await loginAndConsent(browser, authorizeQuery(clientId, REDIRECT_URI, extra), user);
  return exchange(redirect);
}

async function exchange(redirect: URL): Promise<Record<string, unknown>> {
  const code = redirect.searchParams.get('code');
  assert.ok(code, `a code, got ${redirect.href}`);
  const tokens = await postForm(
    `${t.url}/token`,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: RFC7636.verifier },
    { authorization: basicAuth(clientId, SECRET) },
  );
  assert.equal(tokens.status, 200, tokens.text);
  return decodeJwt(String(tokens.body.id_token));
}

async function signOut(browser: Browser): Promise<void> {
  const form = parseForm(await (await browser.get('/logout')).text());
  const out = await browser.post('/logout', form.hidden);
  assert.ok(out.status < 400, String(out.status));
}

/** The RP's validation of a logout token (Back-Channel Logout 1.0, 2.6). */
async function validLogoutToken(token: string): Promise<Record<string, unknown>> {
  const { jwks_uri } = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
  const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(jwks_uri)), {
    issuer: t.url,
    audience: clientId,
    typ: 'logout+jwt',
    maxTokenAge: '2 minutes',
  });
  assert.deepEqual((payload.events as Record<string, unknown>)[EVENT], {});
  assert.equal('nonce' in payload, false);
  return payload;
}

const tokensReceivedFor = (sub: string) =>
  rp.received.map((r) => new URLSearchParams(r.body).get('logout_token')!).filter((token) => decodeJwt(token).sub === sub);

/** Delivers what the outbox holds and returns the valid logout tokens the RP got for `sub` (at least `count`). */
async function logoutTokensFor(sub: string, count: number): Promise<Record<string, unknown>[]> {
  const worker = t.app.core.outboxWorker;
  worker.wake();
  const deadline = Date.now() + 20_000;
  while (tokensReceivedFor(sub).length < count) {
    if (Date.now() > deadline) throw new Error(`the RP got ${tokensReceivedFor(sub).length} logout tokens for ${sub}, expected ${count}`);
    await rp.waitFor(rp.received.length + 1, 500).catch(() => {});
  }
  // Nothing more is on its way: a surplus token would be in the outbox now.
  await worker.drain();
  return Promise.all(tokensReceivedFor(sub).map(validLogoutToken));
}

const liveSessionsOf = (...userIds: string[]) => t.core.db.selectFrom('browser_sessions').select(['user_id', 'sid']).where('user_id', 'in', userIds).execute();

test('re-authentication by the same account (prompt=login, max_age=0) keeps the sid under a new cookie value, and the sign-out that follows sends the RP a logout token with the original sid', async () => {
  const user = await newUser();
  const browser = new Browser(t.url);
  const first = await idTokenOf(browser, user);
  const firstCookie = sessionCookie(browser);
  assert.equal(typeof first.sid, 'string');

  const again = await idTokenOf(browser, user, { prompt: 'login' });
  const secondCookie = sessionCookie(browser);
  const third = await idTokenOf(browser, user, { max_age: '0' });
  // Session fixation: each sign-in gives the browser a new session id; only the sid carries over.
  assert.ok(firstCookie && secondCookie && sessionCookie(browser));
  assert.equal(new Set([firstCookie, secondCookie, sessionCookie(browser)]).size, 3, 'a new cookie value at every sign-in');
  assert.equal(again.sid, first.sid);
  assert.equal(third.sid, first.sid);
  assert.deepEqual(await liveSessionsOf(user.id), [{ user_id: user.id, sid: first.sid }], 'one session, the replaced rows gone');
  // Session fixation (OWASP): the sid carries over, never the cookie — an earlier value finds no session.
  const rows = await t.core.db.selectFrom('browser_sessions').select('id_hash').where('user_id', '=', user.id).execute();
  assert.deepEqual(rows, [{ id_hash: sha256(sessionCookie(browser)!) }]);

  await signOut(browser);
  const tokens = await logoutTokensFor(user.id, 1);
  // One token for the client and session, whichever of the three grants: the sid the RP holds.
  assert.equal(tokens.length, 1);
  assert.equal(tokens[0]!.sid, first.sid);
});

test("another account signing in over a signed-in session ends it as a sign-out does: a logout token with the first account's sid, session.ended; the new session has a sid of its own and a new cookie value", async () => {
  const [alice, bob] = [await newUser(), await newUser()];
  const browser = new Browser(t.url);
  const aliceToken = await idTokenOf(browser, alice);
  const aliceCookie = sessionCookie(browser);

  const bobToken = await idTokenOf(browser, bob, { prompt: 'login' });
  assert.notEqual(sessionCookie(browser), aliceCookie);
  assert.notEqual(bobToken.sid, aliceToken.sid);
  assert.deepEqual(await liveSessionsOf(alice.id, bob.id), [{ user_id: bob.id, sid: bobToken.sid }]);

  const [token] = await logoutTokensFor(alice.id, 1);
  assert.equal(token!.sid, aliceToken.sid);
  assert.equal(tokensReceivedFor(bob.id).length, 0, "bob's session goes on");
  const ended = await t.core.db
    .selectFrom('audit_events')
    .select(['actor_user_id', 'subject', 'details'])
    .where('type', '=', 'session.ended')
    .where('subject', '=', alice.id)
    .execute();
  assert.deepEqual(ended, [{ actor_user_id: bob.id, subject: alice.id, details: { sid: aliceToken.sid, reason: 'another_account_signed_in' } }]);
});

/**
 * Runs two sign-ins of one browser so that they complete at the same moment, deterministically: the test holds
 * the row of the browser's session locked while both requests check their password and reach the statement that
 * takes the session over, waits until both are blocked on that lock, then lets go.
 */
async function atOnce(browser: Browser, submit: () => Promise<Response>[]): Promise<Response[]> {
  const idHash = sha256(sessionCookie(browser)!);
  let answers: Promise<Response[]> | undefined;
  await t.core.db.transaction().execute(async (trx) => {
    await sql`select 1 from browser_sessions where id_hash = ${idHash} for update`.execute(trx);
    answers = Promise.all(submit());
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { rows } = await sql<{ waiting: number }>`
        select count(*)::int as waiting from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query ilike '%browser_sessions%'`.execute(t.core.db);
      if (rows[0]!.waiting >= 2) break;
      if (Date.now() > deadline) throw new Error(`only ${rows[0]!.waiting} sign-ins reached the session's row`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  return answers!;
}

test("concurrency: two sign-ins completing at once in one browser leave one live session, and the first account's end is announced once", async () => {
  const [alice, bob, carol] = [await newUser(), await newUser(), await newUser()];
  const browser = new Browser(t.url);
  const aliceToken = await idTokenOf(browser, alice);
  // Two tabs of the signed-in browser each ask to sign in again; bob and carol submit at the same moment.
  const tab1 = await openInteraction(browser, authorizeQuery(clientId, REDIRECT_URI, { prompt: 'login' }));
  const tab2 = await openInteraction(browser, authorizeQuery(clientId, REDIRECT_URI, { prompt: 'login' }));
  const answers = await atOnce(browser, () => [submitLogin(browser, tab1.form, bob.username), submitLogin(browser, tab2.form, carol.username)]);
  assert.equal(answers.filter((a) => a.status === 409).length, 1, `one sign-in loses: ${answers.map((a) => a.status)}`);
  const lost = answers.find((a) => a.status === 409)!;
  assert.match(await lost.text(), /another tab or window/);
  assert.equal(lost.headers.getSetCookie().length, 0, 'the losing answer sets no cookie');

  const live = await liveSessionsOf(alice.id, bob.id, carol.id);
  assert.equal(live.length, 1, `one live session: ${JSON.stringify(live)}`);
  const tokens = await logoutTokensFor(alice.id, 1);
  assert.equal(tokens.length, 1, "alice's session ended once");
  assert.equal(tokens[0]!.sid, aliceToken.sid);
});

test('concurrency: the same account signing in twice at once keeps one live session with its sid', async () => {
  const dave = await newUser();
  const browser = new Browser(t.url);
  const first = await idTokenOf(browser, dave);
  const tab1 = await openInteraction(browser, authorizeQuery(clientId, REDIRECT_URI, { prompt: 'login' }));
  const tab2 = await openInteraction(browser, authorizeQuery(clientId, REDIRECT_URI, { prompt: 'login' }));
  const answers = await atOnce(browser, () => [submitLogin(browser, tab1.form, dave.username), submitLogin(browser, tab2.form, dave.username)]);
  assert.equal(answers.filter((a) => a.status === 409).length, 1, `one sign-in loses: ${answers.map((a) => a.status)}`);
  assert.deepEqual(await liveSessionsOf(dave.id), [{ user_id: dave.id, sid: first.sid }]);
  await signOut(browser);
  const tokens = await logoutTokensFor(dave.id, 1);
  assert.equal(tokens.length, 1);
  assert.equal(tokens[0]!.sid, first.sid);
});
