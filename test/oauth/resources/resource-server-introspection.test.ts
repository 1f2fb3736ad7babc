// Introspection by resource servers (RFC 7662, docs/resource-servers.md): a resource server introspects with
// its own credentials and learns only about tokens of its own audience, revocations included at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { accessTokenIssuer } from '../../../src/oauth/issued-tokens/access-tokens.js';
import { ACR_MFA } from '../../../src/oauth/issued-tokens/authentication-context.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import type { TestApp } from '../../helpers/app.js';
import { basicAuth, postForm } from '../fixtures.js';
import { resourcesWorld, type Created } from './fixture.js';

let t: TestApp;
let notes: Created;
let user: User;
const world = resourcesWorld();
const { serviceClient, clientCredentials, introspect } = world;

before(async () => {
  ({ t, notes, user } = await world.start());
});
after(() => t.close());

describe('introspection by resource servers (RFC 7662)', () => {
  let svc: { id: string; secret: string };
  before(async () => {
    svc = await serviceClient('orders:read notes:read');
  });
  const tokenFor = async (resource: string) => String(((await clientCredentials(svc, { resource })).body as Record<string, unknown>).access_token);
  const notesServer = () => ({ id: notes.client_id, secret: notes.client_secret });

  test('a resource server introspecting with its own credentials learns about every live token of its audience', async () => {
    const token = await tokenFor(notes.identifier);
    const body = (await introspect(notesServer(), token)).body as Record<string, unknown>;
    assert.equal(body.active, true);
    assert.equal(body.aud, notes.identifier);
    assert.equal(body.scope, 'notes:read');
    assert.equal(body.client_id, svc.id);
    assert.equal(body.sub, svc.id);
    assert.equal(body.iss, t.url);
    assert.equal(body.token_type, 'Bearer');
    assert.ok(typeof body.exp === 'number' && typeof body.iat === 'number');
  });

  test('a resource server gets active false for a token of another audience', async () => {
    const token = await tokenFor(`${t.url}/v1`);
    assert.deepEqual((await introspect(notesServer(), token)).body, { active: false });
    // The client keeps introspecting its own tokens, of any audience.
    assert.equal(((await introspect(svc, token)).body as { active: boolean }).active, true);
  });

  test('revocation is reflected at once in a resource server introspection', async () => {
    const token = await tokenFor(notes.identifier);
    const revoked = await postForm(`${t.url}/revoke`, { token }, { authorization: basicAuth(svc.id, svc.secret) });
    assert.equal(revoked.status, 200);
    assert.deepEqual((await introspect(notesServer(), token)).body, { active: false });
  });

  test("a resource server's introspection carries the authentication context of a user token (auth_time, amr, acr) for its own step-up (RFC 9470)", async () => {
    const authTime = Math.floor(t.core.clock.now() / 1000) - 30;
    // As the code and refresh grants sign it after a password and TOTP sign-in (issued-tokens/user-token-response.ts).
    const { token } = await accessTokenIssuer(t.core).issue({
      sub: user.id,
      clientId: svc.id,
      scope: ['notes:read'],
      authTime,
      audience: notes.identifier,
      authentication: { amr: ['pwd', 'otp', 'mfa'], acr: ACR_MFA },
    });
    const body = (await introspect(notesServer(), token)).body as Record<string, unknown>;
    assert.equal(body.active, true);
    assert.equal(body.auth_time, authTime);
    assert.deepEqual(body.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(body.acr, ACR_MFA);
    // A client_credentials token has no user, so none of them.
    const service = (await introspect(notesServer(), await tokenFor(notes.identifier))).body as Record<string, unknown>;
    assert.equal(service.active, true);
    assert.equal('auth_time' in service || 'amr' in service || 'acr' in service, false);
  });
});
