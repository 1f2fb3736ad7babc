// The userinfo-audience rule (RFC 8707, RFC 9700 2.3; docs/security/tokens-and-operator-views.md): /userinfo
// accepts an access token only if it was issued with `openid` for a user and its audience names the issuer's
// /userinfo. A user token granted `openid` is issued with aud = [resource, {ISSUER}/userinfo], which its
// resource server (and only it) still accepts as its own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { executeCommand } from '../../../src/cli/execute.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import type { TestApp } from '../../helpers/app.js';
import { codeGrantTokens, createClient, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { resourcesWorld, type Created } from './fixture.js';

let t: TestApp;
let notes: Created;
let user: User;
let app: ClientFixture;
const world = resourcesWorld();

before(async () => {
  ({ t, notes, user } = await world.start());
  app = await createClient(t.core.db, t.core.clock, {
    type: 'confidential',
    scopes: ['openid', 'profile', 'email', 'offline_access', 'notes:read', 'users:read'],
  });
});
after(() => t.close());

const userinfo = (token: string) => fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
const notesServer = () => ({ id: notes.client_id, secret: notes.client_secret });

describe('the userinfo-audience rule', () => {
  test('a token issued for another registered resource server alone (aud = its identifier, even with openid and a user) is refused at /userinfo: 401 invalid_token', async () => {
    // What the server issued before this rule: a user's openid token whose only audience is the Notes API.
    const now = Math.floor(t.core.clock.now() / 1000);
    const forNotesOnly = await t.core.keys.sign(
      {
        iss: t.config.ISSUER,
        sub: user.id,
        aud: notes.identifier,
        exp: now + 60,
        iat: now,
        jti: randomUUID(),
        client_id: app.client.id,
        scope: 'openid profile email notes:read',
        auth_time: now,
      },
      { alg: 'ES256', typ: 'at+jwt' },
    );
    // The token is otherwise valid: its resource server's introspection accepts it.
    assert.equal(((await world.introspect(notesServer(), forNotesOnly)).body as { active: boolean }).active, true);
    const refused = await userinfo(forNotesOnly);
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const body = (await refused.json()) as Record<string, unknown>;
    assert.equal(body.error, 'invalid_token');
    assert.equal('email' in body || 'name' in body, false, 'no claim of the user is released');
  });

  test('a user token granted openid for another resource server names both audiences: /userinfo accepts it, its resource server accepts it as its own, /v1 refuses it', async () => {
    const tokens = await codeGrantTokens(t, app, user, ['openid', 'profile', 'notes:read']);
    const token = String(tokens.access_token);
    assert.deepEqual(decodeJwt(token).aud, [notes.identifier, `${t.config.ISSUER}/userinfo`]);
    const ok = await userinfo(token);
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { sub: string }).sub, user.id);
    const introspected = (await world.introspect(notesServer(), token)).body as Record<string, unknown>;
    assert.equal(introspected.active, true, 'the Notes API still accepts a token naming /userinfo beside it');
    assert.deepEqual(introspected.aud, [notes.identifier, `${t.config.ISSUER}/userinfo`]);
    assert.equal((await fetch(`${t.url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })).status, 401, 'the resource API is not its audience');
  });

  test('a user token for the resource API granted openid is accepted by /v1 and /userinfo; without openid it names no /userinfo and /userinfo refuses it', async () => {
    const withOpenid = String((await codeGrantTokens(t, app, user, ['openid', 'users:read'])).access_token);
    assert.deepEqual(decodeJwt(withOpenid).aud, [t.config.API_AUDIENCE, `${t.config.ISSUER}/userinfo`]);
    assert.equal((await fetch(`${t.url}/v1/users/me`, { headers: { authorization: `Bearer ${withOpenid}` } })).status, 200);
    assert.equal((await userinfo(withOpenid)).status, 200);
    const withoutOpenid = String((await codeGrantTokens(t, app, user, ['users:read'])).access_token);
    assert.equal(decodeJwt(withoutOpenid).aud, t.config.API_AUDIENCE);
    assert.equal((await userinfo(withoutOpenid)).status, 403);
  });

  test('a client_credentials token (no user) never names /userinfo and is refused there, for any resource', async () => {
    const svc = await world.serviceClient('notes:read users:read');
    for (const resource of [notes.identifier, t.config.API_AUDIENCE]) {
      const cc = (await world.clientCredentials(svc, { resource })).body as Record<string, unknown>;
      const token = String(cc.access_token);
      assert.equal(decodeJwt(token).aud, resource);
      const refused = await userinfo(token);
      assert.equal(refused.status, 403);
      assert.match(refused.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
    }
  });

  test('the /userinfo audience is not a resource server: registering it is refused, and asking for it at /token is invalid_target', async () => {
    await assert.rejects(
      executeCommand(['resource-servers', 'create', '--identifier', `${t.config.ISSUER}/userinfo`, '--name', 'Sneaky', '--scope', 'sneaky:read=Read'], t.core),
      /UserInfo endpoint/,
    );
    const svc = await world.serviceClient('notes:read');
    const asked = await world.clientCredentials(svc, { resource: `${t.config.ISSUER}/userinfo` });
    assert.equal((asked.body as { error: string }).error, 'invalid_target');
  });
});
