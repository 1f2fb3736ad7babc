// GET /resource-server/configuration and /resource-server/revocations: what a resource server deployed apart
// from Gatehouse (gatehouse protect) follows, readable with that resource server's own credentials only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { executeCommand } from '../../../src/cli/execute.js';
import { createClient } from '../../helpers/oauth-fixtures.js';
import { registerResourceServer } from '../../helpers/resource-servers.js';
import { UsageError } from '../../../src/cli/command.js';
import { revocationsRepository } from '../../../src/storage/repositories/revocations-repository.js';

let t: TestApp;
let creds: { client_id: string; client_secret: string };
const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });

before(async () => {
  t = await startTestApp();
  creds = await registerResourceServer(t.core, 'https://notes.example/api', {
    name: 'Notes',
    scope: 'notes:read=Read notes:admin=Administer',
    routes: ['GET /api/notes*=notes:read', '* /api/admin*=notes:admin;acr=urn:gatehouse:acr:mfa'],
  });
});
after(() => t.close());

test('resource-servers create --route stores the rules; the configuration endpoint hands them to the resource server', async () => {
  const response = await fetch(`${t.url}/resource-server/configuration`, { headers: basic(creds.client_id, creds.client_secret) });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.resource, 'https://notes.example/api');
  assert.equal(body.issuer, t.url);
  assert.deepEqual(body.routes, ['GET /api/notes*=notes:read', '* /api/admin*=notes:admin;acr=urn:gatehouse:acr:mfa']);
  assert.deepEqual(body.scopes_supported, ['notes:read', 'notes:admin']);
});

test('route rules: a malformed rule, or one naming a scope of another resource server, is refused at creation', async () => {
  await assert.rejects(
    executeCommand(
      ['resource-servers', 'create', '--identifier', 'https://a.example/', '--name', 'A', '--scope', 'a:read=Read', '--route', 'GET notes=a:read'],
      t.core,
    ),
    (error: Error) => error instanceof UsageError && /--route: route "GET notes=a:read": the path must start with \//.test(error.message),
  );
  await assert.rejects(
    executeCommand(
      ['resource-servers', 'create', '--identifier', 'https://b.example/', '--name', 'B', '--scope', 'b:read=Read', '--route', 'GET /x*=users:read'],
      t.core,
    ),
    (error: Error) => error instanceof UsageError && /not a scope of this resource server/.test(error.message),
  );
});

test('only the resource server’s own credentials read the feed: none is 401, another client is 403', async () => {
  const none = await fetch(`${t.url}/resource-server/revocations`);
  assert.equal(none.status, 401);
  const other = await createClient(t.core.db, t.core.clock, { type: 'confidential', grantTypes: ['client_credentials'], scopes: ['users:read'] });
  const wrong = await fetch(`${t.url}/resource-server/revocations`, { headers: basic(other.client.id, other.secret!) });
  assert.equal(wrong.status, 403);
  assert.equal(((await wrong.json()) as { error: string }).error, 'unauthorized_client');
  const badSecret = await fetch(`${t.url}/resource-server/configuration`, { headers: basic(creds.client_id, 'not-the-secret') });
  assert.equal(badSecret.status, 401);
});

test('revocations: the whole live list without a cursor, then what was revoked since the cursor (with its overlap)', async () => {
  const headers = basic(creds.client_id, creds.client_secret);
  const first = (await (await fetch(`${t.url}/resource-server/revocations`, { headers })).json()) as {
    cursor: string;
    complete: boolean;
    tokens: { jti: string }[];
  };
  assert.equal(first.complete, true);
  assert.match(first.cursor, /^\d+$/);
  const expiresAt = new Date(Date.now() + 600_000);
  await revocationsRepository(t.core.db, t.core.clock).revoke([{ jti: 'jti-revoked-after-the-cursor', expiresAt }]);
  const next = (await (await fetch(`${t.url}/resource-server/revocations?since=${first.cursor}`, { headers })).json()) as {
    complete: boolean;
    tokens: { jti: string; exp: number }[];
  };
  assert.equal(next.complete, false);
  assert.deepEqual(
    next.tokens.filter((x) => x.jti === 'jti-revoked-after-the-cursor'),
    [{ jti: 'jti-revoked-after-the-cursor', exp: Math.floor(expiresAt.getTime() / 1000) }],
  );
  const bad = await fetch(`${t.url}/resource-server/revocations?since=yesterday`, { headers });
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { error: string }).error, 'invalid_request');
});
