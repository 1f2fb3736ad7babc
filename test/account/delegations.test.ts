// "Apps acting for you" on /account (docs/token-exchange.md): the delegations token exchange made in the
// user's name are listed (client → API, scopes, when) and revoking one makes its exchanged tokens stop
// working — introspection says inactive and the resource API (which reads the revocation feed) refuses
// them — without touching the app's own tokens; the revocation is audited, reaches delegations made below
// it, and cannot be done by another user.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { executeCommand } from '../../src/cli/execute.js';
import { expiredRecordsPurge } from '../../src/oauth/housekeeping.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { NO_LIMITS } from '../helpers/env.js';
import { codeGrantTokens, createClient, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { registerResourceServer } from '../helpers/resource-servers.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

let t: TestApp;
let agent: ClientFixture;
let notesBackend: { id: string; secret: string };
let v1Backend: { id: string; secret: string };
let notes: { identifier: string; client_id: string; client_secret: string };
const cli = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  notes = await registerResourceServer(t.core, 'https://notes.example/api', { name: 'Notes', scope: 'notes:read=Read your notes' });
  const backend = async (name: string, scope: string) => {
    const out = await cli('clients', 'create', '--name', name, '--type', 'confidential', '--grant-types', EXCHANGE, '--scope', scope);
    return { id: String(out.client_id), secret: String(out.client_secret) };
  };
  notesBackend = await backend('Notes backend', 'users:read');
  v1Backend = await backend('Directory backend', 'notes:read');
  // Notes' backend calls the built-in API (/v1, which reads the revocation feed) for the user; the API's own
  // backend passes that on to /v1 again (a chain only narrows: it stays within the scope it was given).
  await cli('resource-servers', 'update', `${t.url}/v1`, '--token-exchange-clients', `${notesBackend.id},${v1Backend.id}`);
  agent = await createClient(t.core.db, t.core.clock, {
    name: 'Research Agent',
    type: 'confidential',
    grantTypes: ['authorization_code'],
    scopes: ['notes:read', 'users:read'],
    defaultResource: notes.identifier,
  });
});
after(() => t.close());

const exchange = (who: { id: string; secret: string }, subject: string, audience: string) =>
  postForm(
    `${t.url}/token`,
    { grant_type: EXCHANGE, subject_token: subject, subject_token_type: ACCESS_TOKEN, audience },
    { authorization: basicAuth(who.id, who.secret) },
  );
const me = (token: string) => fetch(`${t.url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
const introspectAtV1 = async (token: string) => {
  // The Notes resource server introspects its own audience; /v1 tokens are introspected by the client that holds them.
  const res = await postForm(`${t.url}/introspect`, { token }, { authorization: basicAuth(notesBackend.id, notesBackend.secret) });
  return res.body.active;
};

async function signedIn(user: User): Promise<{ browser: Browser; csrf: string; html: string }> {
  const browser = new Browser(t.url);
  const login = parseForm(await (await browser.get('/account')).text());
  await browser.post(login.action, { ...login.hidden, username: user.username, password: PASSWORD });
  const html = await (await browser.get('/account')).text();
  return { browser, csrf: parseForm(html).hidden.csrf!, html };
}

/** The user's token at Notes, exchanged by Notes' backend for a /v1 token. */
async function delegatedToken(user: User): Promise<{ subject: string; exchanged: string }> {
  const subject = String((await codeGrantTokens(t, agent, user, ['notes:read', 'users:read'])).access_token);
  const res = await exchange(notesBackend, subject, `${t.url}/v1`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { subject, exchanged: String(res.body.access_token) };
}

const delegationIdIn = (html: string) => /data-delegation="([^"]+)"/.exec(html)?.[1];

test('the account page lists the delegation (client → API, scopes) and revoking it stops the exchanged token: introspection inactive, the API refuses', async () => {
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const { subject, exchanged } = await delegatedToken(user);
  assert.equal((await me(exchanged)).status, 200);
  assert.equal(await introspectAtV1(exchanged), true);

  const { browser, csrf, html } = await signedIn(user);
  assert.match(html, /<h2>Apps acting for you<\/h2>/);
  assert.match(html, /<strong>Notes backend<\/strong> → <strong>[^<]+<\/strong>/);
  assert.match(html, /users:read · since /);
  const id = delegationIdIn(html);
  assert.ok(id, 'the delegation has a revoke form');

  const revoked = await browser.post('/account/delegations/revoke', { csrf, delegation: id! });
  assert.equal(revoked.headers.get('location'), '/account?done=delegation_revoked');
  assert.equal(await introspectAtV1(exchanged), false, 'introspection says inactive');
  assert.equal((await me(exchanged)).status, 401, 'the API refuses it (the revocation feed of this instance)');
  assert.equal(delegationIdIn(await (await browser.get('/account')).text()), undefined, 'no longer listed');

  // The app's own token still works at its own API; the same delegation cannot be made again from this grant.
  const notesIntrospection = await postForm(`${t.url}/introspect`, { token: subject }, { authorization: basicAuth(notes.client_id, notes.client_secret) });
  assert.equal(notesIntrospection.body.active, true);
  const again = await exchange(notesBackend, subject, `${t.url}/v1`);
  assert.equal(again.body.error, 'invalid_grant');
  assert.match(String(again.body.error_description), /revoked this delegation/);

  const events = await t.core.db.selectFrom('audit_events').selectAll().where('type', '=', 'delegation.revoked').where('subject', '=', user.id).execute();
  assert.equal(events.length, 1);
  assert.equal(events[0]?.client_id, notesBackend.id);
  assert.equal((events[0]!.details as Record<string, unknown>).delegation_id, id);
});

test('revoking a delegation revokes the delegations made below it (the exchanged token exchanged again)', async () => {
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const { exchanged } = await delegatedToken(user);
  const below = await exchange(v1Backend, exchanged, `${t.url}/v1`);
  assert.equal(below.status, 200, JSON.stringify(below.body));
  const belowToken = String(below.body.access_token);
  assert.equal((await me(belowToken)).status, 200);

  const { browser, csrf, html } = await signedIn(user);
  const first = [...html.matchAll(/data-delegation="([^"]+)"/g)].map((m) => m[1]!);
  assert.equal(first.length, 2, 'both delegations are listed');
  const upper = (await t.core.db.selectFrom('delegations').select('id').where('user_id', '=', user.id).where('parent_id', '=', '').executeTakeFirstOrThrow())
    .id;
  await browser.post('/account/delegations/revoke', { csrf, delegation: upper });
  assert.equal((await me(belowToken)).status, 401);
  assert.equal(await introspectAtV1(exchanged), false);
});

test('revoking one delegation twice at once revokes it once: one delegation.revoked audit event', async () => {
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const { exchanged } = await delegatedToken(user);
  const { browser, csrf, html } = await signedIn(user);
  const id = delegationIdIn(html)!;
  await Promise.all([1, 2, 3].map(() => browser.post('/account/delegations/revoke', { csrf, delegation: id })));
  await browser.post('/account/delegations/revoke', { csrf, delegation: id });
  assert.equal((await me(exchanged)).status, 401);
  const events = await t.core.db.selectFrom('audit_events').select('id').where('type', '=', 'delegation.revoked').where('subject', '=', user.id).execute();
  assert.equal(events.length, 1);
});

test('a user cannot revoke another user’s delegation', async () => {
  const owner = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const { exchanged } = await delegatedToken(owner);
  const id = delegationIdIn((await signedIn(owner)).html)!;
  const intruder = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const { browser, csrf } = await signedIn(intruder);
  await browser.post('/account/delegations/revoke', { csrf, delegation: id });
  assert.equal((await me(exchanged)).status, 200, 'still working');
  assert.equal(delegationIdIn((await signedIn(owner)).html), id, 'still listed for its owner');
});

test('revoking the app on /account revokes the tokens exchanged from its grant too', async () => {
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const { exchanged } = await delegatedToken(user);
  const { browser, csrf } = await signedIn(user);
  await browser.post('/account/apps/revoke', { csrf, client_id: agent.client.id });
  assert.equal((await me(exchanged)).status, 401);
});

test('delegation_tokens purge: an expired exchanged token’s row goes, the live one stays, and the delegation is still listed and revoked', async () => {
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const { exchanged } = await delegatedToken(user);
  const live = decodeJwt(exchanged).jti!;
  const { delegation_id } = await t.core.db.selectFrom('delegation_tokens').select('delegation_id').where('jti', '=', live).executeTakeFirstOrThrow();
  // An earlier exchange of the same delegation whose token has expired.
  const stale = `stale-${live}`;
  await t.core.db
    .insertInto('delegation_tokens')
    .values({ jti: stale, delegation_id, expires_at: new Date(t.core.clock.now() - 60_000) })
    .execute();

  await expiredRecordsPurge(t.core)();
  const left = await t.core.db.selectFrom('delegation_tokens').select('jti').where('delegation_id', '=', delegation_id).execute();
  assert.deepEqual(
    left.map((r) => r.jti),
    [live],
  );

  const { browser, csrf, html } = await signedIn(user);
  assert.equal(delegationIdIn(html), delegation_id, 'still listed');
  assert.equal((await me(exchanged)).status, 200);
  await browser.post('/account/delegations/revoke', { csrf, delegation: delegation_id });
  assert.equal((await me(exchanged)).status, 401, 'and revoking it still reaches its live token');
});
