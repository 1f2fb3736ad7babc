// Who receives admin scopes through the admin console's client (src/oauth/console-access.ts, docs/console.md):
// only operators made with `gatehouse users grant-admin`, admin:write only for a write operator whose sign-in
// reached the MFA class, and no other client may ask /authorize for admin scopes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { executeCommand } from '../../src/cli/execute.js';
import { decodeJwt } from 'jose';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { NO_LIMITS } from '../helpers/env.js';
import { SIGN_IN, createUser } from '../helpers/users.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { Browser } from '../helpers/browser.js';
import { authorizeQuery } from '../interaction/browserless.js';
import { consoleSignIn } from '../console/console-sign-in.js';

describe('admin scopes through the console client', () => {
  const clock = manualClock(Date.now() - 120_000);
  let t: TestApp;
  const cli = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;
  before(async () => {
    t = await startTestApp({ clock, env: NO_LIMITS });
  });
  after(() => t.close());

  async function operator(options: { readOnly?: boolean; totp?: boolean } = {}) {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    await cli('users', 'grant-admin', user.username, ...(options.readOnly ? ['--read-only'] : []));
    const totpSecret = options.totp ? (await enrollTotp(t, user)).secret : undefined;
    clock.advance(30_000);
    return { user, totpSecret };
  }
  const adminGet = (token: string, path = '/admin/v1/users?limit=1') => fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  test('a user who is not an operator gets no token through the console client (invalid_scope), whatever they ask for', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const result = await consoleSignIn(t, user);
    assert.equal(result.status, 400);
    assert.equal(result.body.error, 'invalid_scope');
    const totpSecret = (await enrollTotp(t, user)).secret;
    clock.advance(30_000);
    const stepped = await consoleSignIn(t, user, { totpSecret, stepUp: true });
    assert.equal(stepped.body.error, 'invalid_scope', 'a second factor does not make anyone an operator');
  });

  test('admin:write requires a second factor: a write operator signed in with a password alone gets admin:read only', async () => {
    const { user } = await operator();
    const result = await consoleSignIn(t, user);
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.equal(result.body.scope, 'openid admin:read');
    const token = String(result.body.access_token);
    // openid was granted too, so /userinfo is the second audience (the userinfo-audience rule).
    assert.deepEqual(decodeJwt(token).aud, [`${t.url}/admin`, `${t.url}/userinfo`]);
    assert.equal((await adminGet(token)).status, 200);
    const write = await fetch(`${t.url}/admin/v1/signing-keys/rotations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'k-1' },
      body: '{}',
    });
    assert.equal(write.status, 403, 'the API refuses a change without admin:write');
  });

  test('a write operator who signed in with TOTP gets admin:read admin:write for the admin audience, and the audit log names them', async () => {
    const { user, totpSecret } = await operator({ totp: true });
    const result = await consoleSignIn(t, user, { totpSecret, stepUp: true });
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.equal(result.body.scope, 'openid admin:read admin:write');
    assert.equal(result.body.refresh_token, undefined, 'the console holds no refresh token');
    const token = String(result.body.access_token);
    const claims = decodeJwt(token);
    assert.deepEqual(claims.aud, [`${t.url}/admin`, `${t.url}/userinfo`]);
    assert.equal(claims.sub, user.id);
    const target = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const read = await adminGet(token, `/admin/v1/users/${target.id}`);
    const patched = await fetch(`${t.url}/admin/v1/users/${target.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/merge-patch+json', 'if-match': read.headers.get('etag')! },
      body: JSON.stringify({ name: 'Renamed by an operator' }),
    });
    assert.equal(patched.status, 200);
    const events = (await (await adminGet(token, `/admin/v1/audit-events?subject=${target.id}`)).json()) as {
      data: { type: string; actor: Record<string, unknown> }[];
    };
    const updated = events.data.find((e) => e.type === 'admin.user.updated');
    assert.deepEqual(updated?.actor, { kind: 'admin-client', client_id: 'gatehouse-console', user_id: user.id });
  });

  test('a read-only operator gets admin:read only, even after a second factor', async () => {
    const { user, totpSecret } = await operator({ readOnly: true, totp: true });
    const result = await consoleSignIn(t, user, { totpSecret, stepUp: true });
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.equal(result.body.scope, 'openid admin:read');
  });

  test('admin scopes stay operator-only for every other client: /authorize refuses them (invalid_scope)', async () => {
    const { client } = await createClient(t.core.db, t.core.clock, { type: 'public', redirectUris: [REDIRECT_URI], scopes: ['openid', 'admin:read'] });
    const response = await new Browser(t.url).get(authorizeQuery(client.id, REDIRECT_URI, { scope: 'openid admin:read' }));
    const location = new URL(response.headers.get('location')!);
    assert.equal(location.searchParams.get('error'), 'invalid_scope');
  });

  test('revoke-admin ends the operator’s live console tokens at once, and a downgrade to read-only ends the write token', async () => {
    const { user, totpSecret } = await operator({ totp: true });
    const first = String((await consoleSignIn(t, user, { totpSecret, stepUp: true })).body.access_token);
    assert.equal((await adminGet(first)).status, 200);
    const downgraded = await cli('users', 'grant-admin', user.username, '--read-only');
    assert.deepEqual(downgraded.scopes, ['admin:read']);
    assert.equal(downgraded.console_grants_revoked, 1);
    assert.equal((await adminGet(first)).status, 401, 'the write token is revoked');
    clock.advance(30_000);
    const second = await consoleSignIn(t, user, { totpSecret, stepUp: true });
    assert.equal(second.body.scope, 'openid admin:read');
    await cli('users', 'revoke-admin', user.username);
    assert.equal((await adminGet(String(second.body.access_token))).status, 401);
    clock.advance(30_000);
    assert.equal((await consoleSignIn(t, user, { totpSecret, stepUp: true })).body.error, 'invalid_scope');
  });
});
