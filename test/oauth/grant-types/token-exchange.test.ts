// RFC 8693 token exchange (docs/token-exchange.md), end to end: the user's app calls a Calendar API (a
// resource server this test starts) with the user's token; Calendar exchanges it at /token for a token of a
// Contacts API (another server this test starts) and calls it on the user's behalf; Contacts verifies the token
// with jose against Gatehouse's JWKS and checks `act`. Then one test per rule, each refused with the error
// RFC 8693 / RFC 6749 give it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import { executeCommand } from '../../../src/cli/execute.js';
import { MAX_DELEGATION_DEPTH } from '../../../src/oauth/grant-types/token-exchange.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { clientAdminRepository } from '../../../src/storage/repositories/client-admin-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { createUser } from '../../helpers/users.js';
import { codeGrantTokens, createClient, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { dpopKey, dpopProof, serverNonce } from '../../helpers/dpop.js';
import { basicAuth, postForm } from '../fixtures.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

interface Api {
  server: Server;
  url: string;
}

/** A loopback HTTP server; its URL (with a trailing slash) is its resource identifier. */
async function listen(handler: (path: string, token: string | undefined) => Promise<{ status: number; body: unknown }>): Promise<Api> {
  const server = createServer((req, res) => {
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    handler(req.url ?? '/', token).then(
      ({ status, body }) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      (error: unknown) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error) })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

let t: TestApp;
let user: User;
let calendar: Api;
let contacts: Api;
let agent: ClientFixture;
/** Calendar's own client: the one that exchanges the user's token for a Contacts token. */
let calendarClient: { id: string; secret: string };
let impersonator: { id: string; secret: string };
let plainClient: { id: string; secret: string };
let jwks: ReturnType<typeof createRemoteJWKSet>;
/** Contacts' own credentials for /introspect. */
let contactsCredentials: Record<string, unknown>;

const cli = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;
const exchangeClient = async (name: string, extra: string[] = []) => {
  const out = await cli('clients', 'create', '--name', name, '--type', 'confidential', '--grant-types', EXCHANGE, '--scope', 'contacts:read', ...extra);
  return { id: String(out.client_id), secret: String(out.client_secret) };
};
const exchange = (who: { id: string; secret: string }, params: Record<string, string>, headers: Record<string, string> = {}) =>
  postForm(
    `${t.url}/token`,
    { grant_type: EXCHANGE, subject_token_type: ACCESS_TOKEN, ...params },
    { authorization: basicAuth(who.id, who.secret), ...headers },
  );
/** A fresh sign-in of the user at the agent app: its access token is for Calendar (the app's default resource). */
const userToken = async () => String((await codeGrantTokens(t, agent, user, ['calendar:read', 'contacts:read'])).access_token);

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  jwks = createRemoteJWKSet(new URL(`${t.url}/.well-known/jwks.json`));
  // Contacts: accepts only tokens for itself, and only delegated ones, and says who acted.
  contacts = await listen(async (_path, token) => {
    if (!token) return { status: 401, body: { error: 'no token' } };
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer: t.url, audience: contacts.url, algorithms: ['ES256'], typ: 'at+jwt' });
      const act = payload.act as { sub?: string } | undefined;
      if (!act?.sub) return { status: 403, body: { error: 'not a delegated token' } };
      return { status: 200, body: { contacts: ['Ada', 'Grace'], for: payload.sub, act: payload.act, scope: payload.scope } };
    } catch (error) {
      return { status: 401, body: { error: (error as Error).message } };
    }
  });
  // Calendar: verifies the user's token, then calls Contacts for that user through token exchange.
  calendar = await listen(async (_path, token) => {
    if (!token) return { status: 401, body: { error: 'no token' } };
    await jwtVerify(token, jwks, { issuer: t.url, audience: calendar.url, algorithms: ['ES256'], typ: 'at+jwt' });
    const exchanged = await exchange(calendarClient, { subject_token: token, audience: contacts.url, scope: 'contacts:read' });
    if (exchanged.status !== 200) return { status: 502, body: { exchange: exchanged.body } };
    const response = await fetch(contacts.url, { headers: { authorization: `Bearer ${String(exchanged.body.access_token)}` } });
    return { status: 200, body: { agenda: [], contacts: await response.json(), exchanged: exchanged.body } };
  });
  await cli('resource-servers', 'create', '--identifier', calendar.url, '--name', 'Calendar', '--scope', 'calendar:read=See your calendar');
  contactsCredentials = await cli(
    'resource-servers',
    'create',
    '--identifier',
    contacts.url,
    '--name',
    'Contacts',
    '--scope',
    'contacts:read=See your contacts contacts:write=Change your contacts',
  );
  calendarClient = await exchangeClient('calendar-backend');
  impersonator = await exchangeClient('trusted-backend', ['--token-exchange-impersonation']);
  plainClient = await exchangeClient('not-allowed-anywhere');
  await cli('resource-servers', 'update', contacts.url, '--token-exchange-clients', `${calendarClient.id},${impersonator.id}`);
  user = await createUser(t.core.db, t.core.clock);
  agent = await createClient(t.core.db, t.core.clock, {
    type: 'confidential',
    grantTypes: ['authorization_code', 'refresh_token'],
    scopes: ['calendar:read', 'contacts:read', 'contacts:write'],
    defaultResource: calendar.url,
  });
});

after(async () => {
  calendar.server.close();
  contacts.server.close();
  await t.close();
});

describe('a resource server calling another one for the user', () => {
  test('Calendar exchanges the user token and Contacts accepts the result, verified against the JWKS, with act naming Calendar', async () => {
    const token = await userToken();
    assert.equal(decodeJwt(token).aud, calendar.url);
    const response = await fetch(calendar.url, { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { contacts: { for: string; act: unknown; scope: string }; exchanged: Record<string, unknown> };
    assert.equal(response.status, 200, JSON.stringify(body));
    assert.equal(body.contacts.for, user.id);
    assert.deepEqual(body.contacts.act, { sub: calendarClient.id });
    assert.equal(body.contacts.scope, 'contacts:read');
    assert.equal(body.exchanged.issued_token_type, ACCESS_TOKEN);
    assert.equal(body.exchanged.token_type, 'Bearer');
    const claims = decodeJwt(String(body.exchanged.access_token));
    assert.equal(claims.client_id, calendarClient.id);
    assert.ok((claims.exp ?? 0) <= (decodeJwt(token).exp ?? 0), 'never outlives the subject token');
  });

  test('every exchange is a token.exchanged audit event naming the user, the client and the audience', async () => {
    const res = await exchange(calendarClient, { subject_token: await userToken(), resource: contacts.url });
    assert.equal(res.status, 200);
    const jti = decodeJwt(String(res.body.access_token)).jti!;
    const events = await t.core.db.selectFrom('audit_events').selectAll().where('type', '=', 'token.exchanged').execute();
    const event = events.find((e) => (e.details as Record<string, unknown>).jti === jti);
    assert.ok(event, 'an audit event for this exchange');
    assert.equal(event.subject, user.id);
    assert.equal(event.client_id, calendarClient.id);
    assert.equal((event.details as Record<string, unknown>).audience, contacts.url);
    assert.equal((event.details as Record<string, unknown>).actor, calendarClient.id);
  });

  test('an exchanged token exchanged again nests the earlier actor under act', async () => {
    const notes = (await cli('resource-servers', 'create', '--identifier', `${t.url}/notes-api`, '--name', 'Notes', '--scope', 'notes:read=Read notes')) as {
      identifier: string;
    };
    const notesBackend = await exchangeClient('notes-backend');
    const notesWorker = await exchangeClient('notes-worker');
    // Notes' backend hands its job to a worker that calls Notes itself: the same audience, one more actor.
    await cli('resource-servers', 'update', notes.identifier, '--token-exchange-clients', `${notesBackend.id},${notesWorker.id}`);
    const scoped = await createClient(t.core.db, t.core.clock, {
      type: 'confidential',
      grantTypes: ['authorization_code'],
      scopes: ['calendar:read', 'notes:read'],
      defaultResource: calendar.url,
    });
    const first = await exchange(notesBackend, {
      subject_token: String((await codeGrantTokens(t, scoped, user, ['calendar:read', 'notes:read'])).access_token),
      audience: notes.identifier,
    });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const second = await exchange(notesWorker, { subject_token: String(first.body.access_token), audience: notes.identifier });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    const claims = decodeJwt(String(second.body.access_token));
    assert.deepEqual(claims.act, { sub: notesWorker.id, act: { sub: notesBackend.id } });
    assert.equal(claims.scope, 'notes:read');
    assert.equal(claims.sub, user.id);
  });

  test('an actor_token names its subject as the actor (a token of the calling client)', async () => {
    const operator = await createUser(t.core.db, t.core.clock);
    const calendarAsApp = await createClient(t.core.db, t.core.clock, {
      type: 'confidential',
      grantTypes: ['authorization_code', EXCHANGE],
      scopes: ['calendar:read'],
      defaultResource: calendar.url,
    });
    await cli('resource-servers', 'update', contacts.url, '--token-exchange-clients', `${calendarClient.id},${impersonator.id},${calendarAsApp.client.id}`);
    const actorToken = String((await codeGrantTokens(t, calendarAsApp, operator, ['calendar:read'])).access_token);
    const res = await exchange(
      { id: calendarAsApp.client.id, secret: calendarAsApp.secret! },
      { subject_token: await userToken(), audience: contacts.url, actor_token: actorToken, actor_token_type: ACCESS_TOKEN },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(decodeJwt(String(res.body.access_token)).act, { sub: operator.id });
  });

  test('introspection by the target resource server shows act', async () => {
    const res = await exchange(calendarClient, { subject_token: await userToken(), audience: contacts.url });
    const introspected = await postForm(
      `${t.url}/introspect`,
      { token: String(res.body.access_token) },
      { authorization: basicAuth(String(contactsCredentials.client_id), String(contactsCredentials.client_secret)) },
    );
    assert.equal(introspected.body.active, true);
    assert.deepEqual(introspected.body.act, { sub: calendarClient.id });
    assert.equal(introspected.body.sub, user.id);
  });

  test('discovery advertises the token-exchange grant type', async () => {
    const metadata = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { grant_types_supported: string[] };
    assert.ok(metadata.grant_types_supported.includes(EXCHANGE));
  });
});

describe('the rules', () => {
  test('exchange widening scope: a scope the user never granted is invalid_scope', async () => {
    const res = await exchange(calendarClient, { subject_token: await userToken(), audience: contacts.url, scope: 'contacts:write' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_scope');
  });

  test('exchange widening scope: a scope of the subject token’s own audience it does not hold is invalid_scope', async () => {
    const narrow = await codeGrantTokens(t, agent, user, ['contacts:read']);
    // The agent's token for Contacts holds contacts:read; the grant has no contacts:write.
    const res = await exchange(calendarClient, { subject_token: String(narrow.access_token), audience: contacts.url, scope: 'contacts:read contacts:write' });
    assert.equal(res.body.error, 'invalid_scope');
  });

  test('exchange widening scope: a scope removed from the app’s registration since the grant is invalid_scope', async () => {
    const shrinking = await createClient(t.core.db, t.core.clock, {
      type: 'confidential',
      grantTypes: ['authorization_code'],
      scopes: ['calendar:read', 'contacts:read'],
      defaultResource: calendar.url,
    });
    const subject = String((await codeGrantTokens(t, shrinking, user, ['calendar:read', 'contacts:read'])).access_token);
    assert.equal((await exchange(calendarClient, { subject_token: subject, audience: contacts.url })).status, 200);
    await clientAdminRepository(t.core.db, t.core.clock).updateIfVersion(shrinking.client.id, { scopes: ['calendar:read'] }, shrinking.client.version);
    t.core.clients.forget(shrinking.client.id);
    const res = await exchange(calendarClient, { subject_token: subject, audience: contacts.url, scope: 'contacts:read' });
    assert.equal(res.body.error, 'invalid_scope');
  });

  test('exchange into an audience the policy does not allow is invalid_target', async () => {
    const token = await userToken();
    const notListed = await exchange(plainClient, { subject_token: token, audience: contacts.url });
    assert.equal(notListed.status, 400);
    assert.equal(notListed.body.error, 'invalid_target');
    // Calendar's own policy lists nobody: not even the subject token's audience is open.
    const own = await exchange(calendarClient, { subject_token: token, audience: calendar.url });
    assert.equal(own.body.error, 'invalid_target');
    const unknown = await exchange(calendarClient, { subject_token: token, audience: 'https://nowhere.example/' });
    assert.equal(unknown.body.error, 'invalid_target');
    const admin = await exchange(calendarClient, { subject_token: token, resource: `${t.url}/admin` });
    assert.equal(admin.body.error, 'invalid_target');
  });

  test('impersonation without permission: a client not allowed it is always named as the actor', async () => {
    const delegated = await exchange(calendarClient, { subject_token: await userToken(), audience: contacts.url });
    assert.deepEqual(decodeJwt(String(delegated.body.access_token)).act, { sub: calendarClient.id });
    const impersonated = await exchange(impersonator, { subject_token: await userToken(), audience: contacts.url });
    assert.equal(impersonated.status, 200);
    assert.equal(decodeJwt(String(impersonated.body.access_token)).act, undefined, 'the allowed client impersonates');
  });

  test('impersonation without permission: the setting needs the token-exchange grant type', async () => {
    await assert.rejects(
      cli(
        'clients',
        'create',
        '--name',
        'x',
        '--type',
        'confidential',
        '--grant-types',
        'client_credentials',
        '--scope',
        'contacts:read',
        '--token-exchange-impersonation',
      ),
      /--token-exchange-impersonation needs the grant type/,
    );
  });

  test('may_act mismatch: a subject token naming another actor in may_act is invalid_grant', async () => {
    const real = await userToken();
    const resign = (extra: JWTPayload) => t.core.keys.sign({ ...decodeJwt(real), ...extra }, { alg: 'ES256', typ: 'at+jwt' });
    const other = await exchange(calendarClient, { subject_token: await resign({ may_act: { sub: 'someone-else' } }), audience: contacts.url });
    assert.equal(other.status, 400);
    assert.equal(other.body.error, 'invalid_grant');
    assert.match(String(other.body.error_description), /may_act/);
    const named = await exchange(calendarClient, { subject_token: await resign({ may_act: { sub: calendarClient.id } }), audience: contacts.url });
    assert.equal(named.status, 200, JSON.stringify(named.body));
  });

  test('revoked subject token: invalid_grant', async () => {
    const token = await userToken();
    const revoked = await postForm(`${t.url}/revoke`, { token }, { authorization: basicAuth(agent.client.id, agent.secret!) });
    assert.equal(revoked.status, 200);
    const res = await exchange(calendarClient, { subject_token: token, audience: contacts.url });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_grant');
  });

  test('an exchanged token never outlives its subject token: one with a minute left gives a token that ends with it', async () => {
    const real = decodeJwt(await userToken());
    const now = Math.floor(Date.now() / 1000);
    const ending = await t.core.keys.sign({ ...real, exp: now + 60 }, { alg: 'ES256', typ: 'at+jwt' });
    const res = await exchange(calendarClient, { subject_token: ending, audience: contacts.url });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(decodeJwt(String(res.body.access_token)).exp, now + 60, 'the exchanged token ends when its subject token does');
    assert.ok(Number(res.body.expires_in) <= 60, `expires_in ${res.body.expires_in}`);
  });

  test('expired or foreign subject token: invalid_grant', async () => {
    const real = decodeJwt(await userToken());
    const now = Math.floor(Date.now() / 1000);
    const expired = await t.core.keys.sign({ ...real, iat: now - 4000, exp: now - 3400 }, { alg: 'ES256', typ: 'at+jwt' });
    assert.equal((await exchange(calendarClient, { subject_token: expired, audience: contacts.url })).body.error, 'invalid_grant');
    const foreign = await t.core.keys.sign({ ...real, iss: 'https://other-issuer.example' }, { alg: 'ES256', typ: 'at+jwt' });
    assert.equal((await exchange(calendarClient, { subject_token: foreign, audience: contacts.url })).body.error, 'invalid_grant');
    assert.equal((await exchange(calendarClient, { subject_token: 'not-a-token', audience: contacts.url })).body.error, 'invalid_grant');
  });

  test('a client without the grant type is unauthorized_client', async () => {
    const out = await cli('clients', 'create', '--name', 'cc', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'contacts:read');
    const res = await exchange({ id: String(out.client_id), secret: String(out.client_secret) }, { subject_token: await userToken(), audience: contacts.url });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'unauthorized_client');
  });

  test('only access tokens: another requested_token_type or subject_token_type is invalid_request', async () => {
    const token = await userToken();
    const refresh = await exchange(calendarClient, {
      subject_token: token,
      audience: contacts.url,
      requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token',
    });
    assert.equal(refresh.body.error, 'invalid_request');
    const idToken = await exchange(calendarClient, {
      subject_token: token,
      audience: contacts.url,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    });
    assert.equal(idToken.body.error, 'invalid_request');
  });

  test('an actor_token issued to another client names no actor: invalid_grant', async () => {
    const res = await exchange(calendarClient, {
      subject_token: await userToken(),
      audience: contacts.url,
      actor_token: await userToken(),
      actor_token_type: ACCESS_TOKEN,
    });
    assert.equal(res.body.error, 'invalid_grant');
  });

  test('a DPoP-bound subject token is exchanged only with a proof of its key', async () => {
    const key = await dpopKey();
    const tokenUrl = `${t.url}/token`;
    const { verifier, challenge } = await import('../../helpers/pkce.js').then((m) => m.pkcePair());
    const { authorizationCodes } = await import('../../../src/oauth/codes/index.js');
    const code = await authorizationCodes(t.core).issue({
      clientId: agent.client.id,
      redirectUri: 'https://client.example/cb',
      codeChallenge: challenge,
      scope: ['calendar:read', 'contacts:read'],
      userId: user.id,
      authTime: Math.floor(Date.now() / 1000),
    });
    const bound = await postForm(
      tokenUrl,
      { grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/cb', code_verifier: verifier },
      { authorization: basicAuth(agent.client.id, agent.secret!), dpop: await dpopProof(key, tokenUrl, { nonce: await serverNonce(tokenUrl) }) },
    );
    assert.equal(bound.body.token_type, 'DPoP', JSON.stringify(bound.body));
    const subject = String(bound.body.access_token);
    const without = await exchange(calendarClient, { subject_token: subject, audience: contacts.url });
    assert.equal(without.body.error, 'invalid_grant');
    const other = await dpopKey();
    const wrongKey = await exchange(
      calendarClient,
      { subject_token: subject, audience: contacts.url },
      { dpop: await dpopProof(other, tokenUrl, { nonce: await serverNonce(tokenUrl) }) },
    );
    assert.equal(wrongKey.body.error, 'invalid_grant');
    const proven = await exchange(
      calendarClient,
      { subject_token: subject, audience: contacts.url },
      { dpop: await dpopProof(key, tokenUrl, { nonce: await serverNonce(tokenUrl) }) },
    );
    assert.equal(proven.status, 200, JSON.stringify(proven.body));
    assert.equal(proven.body.token_type, 'DPoP');
    assert.equal((decodeJwt(String(proven.body.access_token)).cnf as { jkt: string }).jkt, (decodeJwt(subject).cnf as { jkt: string }).jkt);
  });

  test('a public client cannot exchange (unauthorized_client), and cannot be listed in a policy', async () => {
    const out = await cli('clients', 'create', '--name', 'spa', '--type', 'public', '--grant-types', EXCHANGE, '--scope', 'contacts:read');
    const res = await postForm(`${t.url}/token`, {
      grant_type: EXCHANGE,
      client_id: String(out.client_id),
      subject_token: await userToken(),
      subject_token_type: ACCESS_TOKEN,
      audience: contacts.url,
    });
    assert.equal(res.body.error, 'unauthorized_client');
    await assert.rejects(cli('resource-servers', 'update', contacts.url, '--token-exchange-clients', String(out.client_id)), /public client/);
  });

  test('the same exchange sent at once many times: every answer is recorded under one delegation, and one revoke ends them all', async () => {
    const fresh = await createUser(t.core.db, t.core.clock);
    const subject = String((await codeGrantTokens(t, agent, fresh, ['calendar:read', 'contacts:read'])).access_token);
    const answers = await Promise.all(Array.from({ length: 6 }, () => exchange(calendarClient, { subject_token: subject, audience: contacts.url })));
    for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const rows = await t.core.db.selectFrom('delegations').select('id').where('user_id', '=', fresh.id).execute();
    assert.equal(rows.length, 1, 'one delegation');
    const tokens = await t.core.db.selectFrom('delegation_tokens').select('jti').where('delegation_id', '=', rows[0]!.id).execute();
    assert.equal(tokens.length, 6, 'every issued token recorded under it');
    const ended = await t.core.store.transaction((tx) => tx.delegations.revoke(fresh.id, rows[0]!.id));
    assert.equal(ended?.id, rows[0]!.id);
    const revoked = await t.core.db
      .selectFrom('revoked_access_tokens')
      .select('jti')
      .where(
        'jti',
        'in',
        tokens.map((x) => x.jti),
      )
      .execute();
    assert.equal(revoked.length, 6);
  });

  test('resources-servers update refuses a client that is not registered for token exchange', async () => {
    const out = await cli('clients', 'create', '--name', 'cc2', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'contacts:read');
    await assert.rejects(
      cli('resource-servers', 'update', contacts.url, '--token-exchange-clients', String(out.client_id)),
      /--token-exchange-clients .* not registered for the grant type/,
    );
    await assert.rejects(cli('resource-servers', 'update', contacts.url, '--token-exchange-clients', 'no-such-client'), /not a registered client/);
  });
});

/**
 * Chains: tokens obtained by exchange, exchanged again. Each test gets its own APIs X (scope x:a) and Y
 * (scope y:b), which only appear as audiences, and an app the user grants `calendar:read x:a y:b` to.
 */
let chainCount = 0;
async function chainSetup(hops: number) {
  const n = ++chainCount;
  const x = await cli('resource-servers', 'create', '--identifier', `${t.url}/chain-x-${n}`, '--name', `X${n}`, '--scope', `x${n}:a=A`);
  const y = await cli('resource-servers', 'create', '--identifier', `${t.url}/chain-y-${n}`, '--name', `Y${n}`, '--scope', `y${n}:b=B`);
  const clients = [];
  for (let i = 0; i < hops; i++) clients.push(await exchangeClient(`chain-${n}-hop-${i}`));
  const ids = clients.map((c) => c.id).join(',');
  await cli('resource-servers', 'update', String(x.identifier), '--token-exchange-clients', ids);
  await cli('resource-servers', 'update', String(y.identifier), '--token-exchange-clients', ids);
  const app = await createClient(t.core.db, t.core.clock, {
    type: 'confidential',
    grantTypes: ['authorization_code'],
    scopes: ['calendar:read', `x${n}:a`, `y${n}:b`],
    defaultResource: calendar.url,
  });
  const someone = await createUser(t.core.db, t.core.clock);
  const root = String((await codeGrantTokens(t, app, someone, ['calendar:read', `x${n}:a`, `y${n}:b`])).access_token);
  return {
    X: String(x.identifier),
    Y: String(y.identifier),
    a: `x${n}:a`,
    b: `y${n}:b`,
    xCredentials: { id: String(x.client_id), secret: String(x.client_secret) },
    clients,
    app,
    user: someone,
    root,
  };
}

const delegationsOf = (userId: string) => t.core.db.selectFrom('delegations').select(['id', 'parent_id']).where('user_id', '=', userId).execute();

describe('chains', () => {
  test('chained widening: a token obtained by exchange is never exchanged for a scope the user granted at another audience (invalid_scope)', async () => {
    const c = await chainSetup(2);
    const [first, second] = c.clients as [{ id: string; secret: string }, { id: string; secret: string }];
    const atX = await exchange(first, { subject_token: c.root, audience: c.X, scope: c.a });
    assert.equal(atX.status, 200, JSON.stringify(atX.body));
    const exchanged = String(atX.body.access_token);

    const widened = await exchange(second, { subject_token: exchanged, audience: c.Y, scope: c.b });
    assert.equal(widened.status, 400);
    assert.equal(widened.body.error, 'invalid_scope');
    const unnamed = await exchange(second, { subject_token: exchanged, audience: c.Y });
    assert.equal(unnamed.body.error, 'invalid_scope', 'nor without a scope parameter');

    // Within its own scope the chain goes on; and the user's own token still reaches Y (the first exchange).
    const narrow = await exchange(second, { subject_token: exchanged, audience: c.X, scope: c.a });
    assert.equal(narrow.status, 200, JSON.stringify(narrow.body));
    const fromRoot = await exchange(second, { subject_token: c.root, audience: c.Y, scope: c.b });
    assert.equal(fromRoot.status, 200, JSON.stringify(fromRoot.body));
  });

  test(`chain depth: ${MAX_DELEGATION_DEPTH} exchanges in a row are allowed with every actor kept in act; one more is invalid_grant and records nothing`, async () => {
    assert.equal(MAX_DELEGATION_DEPTH, 5, 'the limit docs/token-exchange.md states');
    const c = await chainSetup(MAX_DELEGATION_DEPTH + 1);
    let token = c.root;
    for (let i = 0; i < MAX_DELEGATION_DEPTH; i++) {
      const res = await exchange(c.clients[i]!, { subject_token: token, audience: c.X });
      assert.equal(res.status, 200, `exchange ${i + 1}: ${JSON.stringify(res.body)}`);
      token = String(res.body.access_token);
    }
    // Every actor, newest outermost: nothing dropped.
    let expected: Record<string, unknown> | undefined;
    for (const client of c.clients.slice(0, MAX_DELEGATION_DEPTH)) expected = { sub: client.id, ...(expected ? { act: expected } : {}) };
    assert.deepEqual(decodeJwt(token).act, expected);
    assert.equal((await delegationsOf(c.user.id)).length, MAX_DELEGATION_DEPTH);
    // A token at the limit is one every verifier takes (the resource-server kit reads act five levels deep).
    const introspected = await postForm(`${t.url}/introspect`, { token }, { authorization: basicAuth(c.xCredentials.id, c.xCredentials.secret) });
    assert.equal(introspected.body.active, true);
    assert.deepEqual(introspected.body.act, expected);

    const past = await exchange(c.clients[MAX_DELEGATION_DEPTH]!, { subject_token: token, audience: c.X });
    assert.equal(past.status, 400);
    assert.equal(past.body.error, 'invalid_grant');
    assert.match(String(past.body.error_description), new RegExp(`chain of ${MAX_DELEGATION_DEPTH} exchanges`));
    assert.equal((await delegationsOf(c.user.id)).length, MAX_DELEGATION_DEPTH, 'no delegation recorded past the limit');
  });

  test('chain depth: a chain that impersonates (no act added) is counted all the same', async () => {
    const c = await chainSetup(MAX_DELEGATION_DEPTH + 1);
    for (const client of c.clients) await cli('clients', 'update', client.id, '--token-exchange-impersonation', 'on');
    let token = c.root;
    for (let i = 0; i < MAX_DELEGATION_DEPTH; i++) {
      const res = await exchange(c.clients[i]!, { subject_token: token, audience: c.X });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      token = String(res.body.access_token);
    }
    assert.equal(decodeJwt(token).act, undefined);
    const past = await exchange(c.clients[MAX_DELEGATION_DEPTH]!, { subject_token: token, audience: c.X });
    assert.equal(past.body.error, 'invalid_grant');
  });

  test('never drop actors: a subject token whose act is deeper than verifiers accept, or malformed, is refused (invalid_grant), not cut', async () => {
    const real = decodeJwt(await userToken());
    const resign = (act: unknown) => t.core.keys.sign({ ...real, act }, { alg: 'ES256', typ: 'at+jwt' });
    let deep: Record<string, unknown> = { sub: 'actor-0' };
    for (let i = 1; i <= MAX_DELEGATION_DEPTH; i++) deep = { sub: `actor-${i}`, act: deep };
    const tooDeep = await exchange(calendarClient, { subject_token: await resign(deep), audience: contacts.url });
    assert.equal(tooDeep.status, 400, JSON.stringify(tooDeep.body));
    assert.equal(tooDeep.body.error, 'invalid_grant');
    const malformed = await exchange(calendarClient, { subject_token: await resign({ sub: 'a', act: 'b' }), audience: contacts.url });
    assert.equal(malformed.body.error, 'invalid_grant', JSON.stringify(malformed.body));
  });

  test('impersonation and delegation: a client allowed to impersonate gets delegation (act naming the actor) when it sends an actor_token', async () => {
    const c = await chainSetup(0);
    const both = await createClient(t.core.db, t.core.clock, {
      type: 'confidential',
      grantTypes: ['authorization_code', EXCHANGE],
      scopes: ['calendar:read'],
      defaultResource: calendar.url,
    });
    const self = { id: both.client.id, secret: both.secret! };
    await cli('clients', 'update', self.id, '--token-exchange-impersonation', 'on');
    await cli('resource-servers', 'update', c.X, '--token-exchange-clients', self.id);
    const operator = await createUser(t.core.db, t.core.clock);
    const actorToken = String((await codeGrantTokens(t, both, operator, ['calendar:read'])).access_token);

    const delegated = await exchange(self, { subject_token: c.root, audience: c.X, actor_token: actorToken, actor_token_type: ACCESS_TOKEN });
    assert.equal(delegated.status, 200, JSON.stringify(delegated.body));
    assert.deepEqual(decodeJwt(String(delegated.body.access_token)).act, { sub: operator.id });
    const impersonated = await exchange(self, { subject_token: c.root, audience: c.X });
    assert.equal(impersonated.status, 200, JSON.stringify(impersonated.body));
    assert.equal(decodeJwt(String(impersonated.body.access_token)).act, undefined);
    const events = await t.core.db
      .selectFrom('audit_events')
      .select('details')
      .where('type', '=', 'token.exchanged')
      .where('client_id', '=', self.id)
      .execute();
    assert.deepEqual(events.map((e) => (e.details as Record<string, unknown>).actor).sort(), ['impersonation', operator.id].sort());
  });
});

describe('concurrency', () => {
  test('two exchanges at once with the same exchanged subject token: both answered, recorded under one delegation below it', async () => {
    const c = await chainSetup(2);
    const first = await exchange(c.clients[0]!, { subject_token: c.root, audience: c.X });
    const subject = String(first.body.access_token);
    const answers = await Promise.all([1, 2].map(() => exchange(c.clients[1]!, { subject_token: subject, audience: c.X })));
    for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const rows = await delegationsOf(c.user.id);
    assert.equal(rows.length, 2, 'the first delegation and one below it');
    const below = rows.find((r) => r.parent_id !== '')!;
    const tokens = await t.core.db.selectFrom('delegation_tokens').select('jti').where('delegation_id', '=', below.id).execute();
    assert.equal(tokens.length, 2);
  });

  test('a revoke racing an exchange: whichever comes first, no token of the revoked delegation (or one below it) stays active', async () => {
    for (let round = 0; round < 4; round++) {
      const c = await chainSetup(2);
      const first = await exchange(c.clients[0]!, { subject_token: c.root, audience: c.X });
      const upper = (await delegationsOf(c.user.id))[0]!.id;
      const [again, below] = await Promise.all([
        // The same delegation again (from the user's token) and one below it (from its token), while it is revoked.
        exchange(c.clients[0]!, { subject_token: c.root, audience: c.X }),
        exchange(c.clients[1]!, { subject_token: String(first.body.access_token), audience: c.X }),
        t.core.store.transaction((tx) => tx.delegations.revoke(c.user.id, upper)),
      ]);
      const active = async (token: string) =>
        (await postForm(`${t.url}/introspect`, { token }, { authorization: basicAuth(c.xCredentials.id, c.xCredentials.secret) })).body.active;
      assert.equal(await active(String(first.body.access_token)), false);
      for (const answer of [again, below]) {
        if (answer.status === 200) assert.equal(await active(String(answer.body.access_token)), false, `round ${round}: issued, then revoked`);
        else assert.equal(answer.body.error, 'invalid_grant', `round ${round}: ${JSON.stringify(answer.body)}`);
      }
    }
  });
});
