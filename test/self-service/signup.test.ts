// Sign-up over real HTTP (src/self-service/signup.ts, docs/email.md), mail from the development mailbox;
// Chromium and a real SMTP server are in self-service.browser.test.ts. Each test is named after its rule.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser } from '../helpers/browser.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { createUser, SIGN_IN } from '../helpers/users.js';
import { authorizeQuery, openInteraction } from '../interaction/browserless.js';
import { verifyPassword } from '../../src/crypto/passwords.js';
import {
  assertNoUsableDifference,
  freshClientAddress,
  linkIn,
  mailsTo,
  observable,
  pairedTiming,
  postForm,
  selfServiceApp,
  settle,
} from './self-service-world.js';

let t: TestApp;
let shift = 0;
const clock = { now: () => Date.now() + shift };
let clientId: string;
before(async () => {
  t = await selfServiceApp({ RATE_LIMIT_MAIL_PER_ADDRESS: '1000', RATE_LIMIT_MAIL_PER_RECIPIENT: '1000' }, { clock });
  clientId = (await createClient(t.core.db, t.core.clock, { skipConsent: true })).client.id;
});
after(() => t.close());

const PASSWORD = 'a sign-up password';
const signup = (email: string, extra: Record<string, string> = {}, app = t, from = freshClientAddress()) =>
  postForm(app, '/signup', { email, name: 'New Person', password: PASSWORD, confirm: PASSWORD, ...extra }, { 'x-forwarded-for': from });
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
const verify = (token: string) => postForm(t, '/signup/verify', { token });
const accountsWith = (email: string) => t.core.db.selectFrom('users').selectAll().where('email', '=', email).execute();

test('sign-up: "Create an account" on the login page → /signup → verification link → the account exists, email_verified only through the link, and the link leads back to the authorization request', async () => {
  const { html, path } = await openInteraction(new Browser(t.url), authorizeQuery(clientId, REDIRECT_URI));
  const interaction = path.split('/').pop()!;
  assert.match(html, new RegExp(`href="/signup\\?interaction=${interaction}">Create an account</a>`));

  assert.equal((await signup('new@example.test', { interaction })).status, 200);
  await settle(t);
  assert.equal((await accountsWith('new@example.test')).length, 0, 'no account before the link is followed');
  const link = linkIn(t, 'new@example.test', '/signup/verify');
  assert.doesNotMatch(link, /interaction/, 'the interaction stays on the server, with the sign-up');
  assert.equal((await fetch(link)).status, 200, 'showing the page does not use the link');
  const done = await verify(tokenOf(link));
  assert.equal(done.status, 200);
  assert.match(await done.text(), new RegExp(`href="/interaction/${interaction}">Continue`));
  const [user] = await accountsWith('new@example.test');
  assert.ok(user);
  assert.deepEqual([user.username, user.email_verified, user.name], ['new@example.test', true, 'New Person']);
  assert.equal(await verifyPassword(user.password_hash, PASSWORD), true);
  assert.equal((await verify(tokenOf(link))).status, 410, 'single use');
  const events = await t.core.db.selectFrom('audit_events').select('type').where('subject', '=', user.id).execute();
  assert.deepEqual(
    events.map((e) => e.type),
    ['user.signed_up'],
  );
});

test('sign-up verification links are single use under parallel submissions: of 8 at once exactly one creates the account', async () => {
  await signup('parallel-signup@example.test');
  await settle(t);
  const token = tokenOf(linkIn(t, 'parallel-signup@example.test', '/signup/verify'));
  const answers = await Promise.all(Array.from({ length: 8 }, () => verify(token)));
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, 410, 410, 410, 410, 410, 410, 410]);
  assert.equal((await accountsWith('parallel-signup@example.test')).length, 1);
});

test('sign-up with an address that has an account: the same answer, no new account, and the account is told by mail', async () => {
  await createUser(t.core.db, t.core.clock, { ...SIGN_IN, username: 'existing-user', profile: { email: 'taken@example.test', email_verified: true } });
  const known = await observable(await signup('taken@example.test', {}, t, '203.0.113.30'), 'taken@example.test');
  const unknown = await observable(await signup('fresh@example.test', {}, t, '203.0.113.31'), 'fresh@example.test');
  assert.equal(known.status, 200);
  assert.deepEqual(unknown, known);
  await settle(t);
  assert.equal((await accountsWith('taken@example.test')).length, 1);
  const notice = mailsTo(t, 'taken@example.test')[0]!;
  assert.match(notice.subject, /Sign-up attempt/);
  assert.match(notice.text, /existing-user/);
  assert.doesNotMatch(notice.text, /signup\/verify/, 'no link that could create a second account');
  assert.equal(await t.core.db.selectFrom('signup_requests').select('id').where('email', '=', 'taken@example.test').executeTakeFirst(), undefined);
});

test('sign-up: no usable timing difference between an address with an account and an unknown one (40 paired, interleaved requests)', async () => {
  await createUser(t.core.db, t.core.clock, { ...SIGN_IN, profile: { email: 'timed-signup@example.test' } });
  for (let i = 0; i < 3; i++) await signup(`warm-signup${i}@example.test`);
  const result = await pairedTiming(
    40,
    () => signup('timed-signup@example.test', {}, t, '203.0.113.40'),
    () => signup('other-signup@example.test', {}, t, '203.0.113.40'),
    () => settle(t),
  );
  // Each request hashes a password (argon2id, tens of milliseconds), so the bound is wider than the forgotten password's.
  assertNoUsableDifference(result, 15);
});

test('unverified sign-ups expire and are deleted by the housekeeping job; their link is refused', async () => {
  await signup('late@example.test');
  await settle(t);
  const token = tokenOf(linkIn(t, 'late@example.test', '/signup/verify'));
  const count = async () => (await t.core.db.selectFrom('signup_requests').select('id').where('email', '=', 'late@example.test').execute()).length;
  assert.equal(await count(), 1);
  shift += (t.config.EMAIL_VERIFICATION_TTL + 1) * 1000 + 3_600_000;
  try {
    assert.equal((await verify(token)).status, 410);
    await t.app.core.jobs.runDue();
    assert.equal(await count(), 0);
    assert.equal((await accountsWith('late@example.test')).length, 0);
  } finally {
    shift = 0;
  }
});

test('sign-up is off unless SIGNUP=open: no link on the login page, /signup answers 404; SIGNUP_DOMAINS limits the addresses', async () => {
  const closed = await startTestApp();
  try {
    const client = (await createClient(closed.core.db, closed.core.clock, { skipConsent: true })).client.id;
    const { html } = await openInteraction(new Browser(closed.url), authorizeQuery(client, REDIRECT_URI));
    assert.doesNotMatch(html, /Create an account/);
    assert.match(html, /Forgot your password\?/);
    assert.equal((await fetch(`${closed.url}/signup`)).status, 404);
    assert.equal((await signup('x@example.test', {}, closed)).status, 404);
  } finally {
    await closed.close();
  }
  const limited = await selfServiceApp({ SIGNUP_DOMAINS: 'example.org' });
  try {
    const refused = await signup('someone@example.test', {}, limited);
    assert.equal(refused.status, 422);
    assert.match(await refused.text(), /open to addresses at example\.org only/);
    assert.equal((await signup('someone@example.org', {}, limited)).status, 200);
  } finally {
    await limited.close();
  }
});

test('sign-up: bad input gets the form again with a message (password rules, mismatch, address), never an error', async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ email: 'short@example.test', password: 'short', confirm: 'short' }, /at least 8 characters/],
    [{ email: 'mismatch@example.test', confirm: 'something else' }, /differ/],
    [{ email: 'not an address' }, /Type an e-mail address/],
    [{ email: `${'x'.repeat(70)}@example.test` }, /at most 64/],
    [{ email: 'ok@example.test', name: 'a\u0000b' }, /name/],
  ];
  for (const [fields, message] of cases) {
    const res = await signup(fields.email!, fields);
    assert.equal(res.status, 422, JSON.stringify(fields));
    assert.match(await res.text(), message);
  }
  assert.equal((await postForm(t, '/signup/verify', { token: 'x'.repeat(300) })).status, 410);
});
