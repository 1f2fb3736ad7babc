// /admin/v1/sessions (docs/admin-api.md): a user's signed-in browser sessions with device and address, and
// ending one — the browser's cookie stops working at once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { adminFixture, problemOf, type AdminFixture } from './fixture.js';
import { del, readEtag } from './user-access-fixture.js';
import { walk } from './fixture.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { browserSessionsRepository } from '../../src/storage/repositories/browser-sessions-repository.js';

type Session = { id: string; user_id: string; user_agent: string | null; ip_address: string | null; created_at: string };

const clock = manualClock(Date.now());
let f: AdminFixture;
let user: User;
before(async () => {
  f = await adminFixture({ clock });
  user = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
});
after(() => f.t.close());

/** A browser signed in to /account with the password. */
async function signedIn(who: User = user, userAgent = 'AdminTest/1.0'): Promise<Browser> {
  const browser = new Browser(f.t.url);
  const headers = { 'user-agent': userAgent };
  const login = parseForm(await (await browser.get('/account', headers)).text());
  const res = await browser.post(login.action, { ...login.hidden, username: who.username, password: PASSWORD }, headers);
  assert.equal(res.headers.get('location'), '/account');
  assert.match(await (await browser.get('/account', headers)).text(), /<h1>Your account<\/h1>/);
  return browser;
}

async function sessionsOf(userId: string): Promise<Session[]> {
  const res = await f.api(`/admin/v1/sessions?user_id=${userId}`);
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { data: Session[] }).data;
}

test('sessions are listed by user with the device and address they signed in from; a list without user_id is 400', async () => {
  const other = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
  await signedIn(other, 'Listing/2.0');
  const [session] = await sessionsOf(other.id);
  assert.equal(session!.user_agent, 'Listing/2.0');
  assert.ok(session!.ip_address);
  assert.equal(session!.user_id, other.id);
  const none = await f.api('/admin/v1/sessions');
  assert.equal(none.status, 400);
  assert.equal((await problemOf(none)).code, 'bad-request');
  assert.equal((await f.api('/admin/v1/sessions?client_id=x')).status, 400, 'sessions belong to users, not clients');
});

test('ending a session makes its browser cookie stop working: the account page asks to sign in again', async () => {
  const other = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
  const browser = await signedIn(other);
  const [session] = await sessionsOf(other.id);
  const path = `/admin/v1/sessions/${session!.id}`;
  assert.equal((await del(f, path, await readEtag(f, path))).status, 204);
  const page = await (await browser.get('/account')).text();
  assert.doesNotMatch(page, /<h1>Your account<\/h1>/);
  assert.match(page, /name="password"/);
  assert.equal((await f.api(path)).status, 404);
});

test('DELETE of a session requires If-Match: 428 without, 412 when stale, and the session keeps working', async () => {
  const other = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
  const browser = await signedIn(other);
  const [session] = await sessionsOf(other.id);
  const without = await del(f, `/admin/v1/sessions/${session!.id}`);
  assert.equal(without.status, 428);
  assert.equal((await problemOf(without)).code, 'precondition-required');
  assert.equal((await del(f, `/admin/v1/sessions/${session!.id}`, '"stale"')).status, 412);
  assert.match(await (await browser.get('/account')).text(), /<h1>Your account<\/h1>/);
});

test('two parallel DELETEs of one session with the same ETag: exactly one 204, the other 404', async () => {
  const other = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
  await signedIn(other);
  const [session] = await sessionsOf(other.id);
  const path = `/admin/v1/sessions/${session!.id}`;
  const etag = await readEtag(f, path);
  const answers = await Promise.all([del(f, path, etag), del(f, path, etag)]);
  assert.deepEqual(answers.map((r) => r.status).sort(), [204, 404]);
});

test('unknown session ids and anonymous (not signed-in) sessions are 404, never 500', async () => {
  // An anonymous session, as an authorization request starts one before anyone signs in (/account no longer does).
  const anonymous = await browserSessionsRepository(f.t.core.db, f.t.core.clock).start({ userId: null, authTime: null, ttlSeconds: 600 });
  for (const id of ['nope', 'x'.repeat(200), anonymous.idHash]) {
    assert.equal((await problemOf(await f.api(`/admin/v1/sessions/${id}`))).code, 'not-found');
    assert.equal((await del(f, `/admin/v1/sessions/${id}`, '"x"')).status, 404);
  }
});

test('admin:read cannot end a session: 403 insufficient_scope', async () => {
  const other = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
  const browser = await signedIn(other);
  const [session] = await sessionsOf(other.id);
  const path = `/admin/v1/sessions/${session!.id}`;
  const res = await f.api(path, { method: 'DELETE', headers: { 'if-match': await readEtag(f, path) }, token: f.readToken });
  assert.equal(res.status, 403);
  assert.match(res.headers.get('www-authenticate') ?? '', /insufficient_scope/);
  assert.match(await (await browser.get('/account')).text(), /<h1>Your account<\/h1>/);
});

test('405 with Allow on a session', async () => {
  const res = await f.api('/admin/v1/sessions/x', { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: '{}' });
  assert.equal(res.status, 405);
  assert.match(res.headers.get('allow') ?? '', /DELETE/);
});

test('session lists are cursor pages, stable while the user signs in again elsewhere', async () => {
  const other = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
  for (let i = 0; i < 3; i++) {
    clock.advance(1000);
    await signedIn(other);
  }
  const seen = await walk<Session>(f, `/admin/v1/sessions?user_id=${other.id}&limit=2`, async () => {
    clock.advance(1000);
    await signedIn(other);
  });
  const ids = seen.map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length, 'no duplicates');
  assert.equal(ids.length, 4, 'no gaps');
});

test('ending a session is an audit event naming the admin client and the user', async () => {
  const other = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
  await signedIn(other);
  const [session] = await sessionsOf(other.id);
  const path = `/admin/v1/sessions/${session!.id}`;
  await del(f, path, await readEtag(f, path));
  const res = await f.api(`/admin/v1/audit-events?type=admin.session.ended&subject=${other.id}`);
  const [event] = ((await res.json()) as { data: { actor: Record<string, string>; resource_id: string }[] }).data;
  assert.deepEqual(event!.actor, { kind: 'admin-client', client_id: f.admin.id });
  assert.equal(event!.resource_id, session!.id);
});
