// The worked example (examples/resource-server/, README "Protect your own API") end to end: Gatehouse runs,
// the example runs as a child process with plain `node` (its one dependency, jose, resolves from the root
// node_modules: no install of its own), it is registered with the CLI commands the README shows, tokens
// come from openid-client (client_credentials) and oauth4webapi (authorization code), and the example
// accepts its own tokens, refuses the /v1 API's, and refuses a revoked token at once where it introspects.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import * as client from 'openid-client';
import * as oauth from 'oauth4webapi';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { spawnTracked } from '../helpers/children.js';
import { browserlessLogin } from '../helpers/browserless-login.js';
import { NO_LIMITS } from '../helpers/env.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { createUser, PASSWORD } from '../helpers/users.js';
import { executeCommand } from '../../src/cli/execute.js';
import { freePort } from '../../scripts/pg-cluster.mjs';
import type { ChildProcess } from 'node:child_process';

const IDENTIFIER = 'https://notes.example.com/api';
const exampleDir = fileURLToPath(new URL('../../examples/resource-server/', import.meta.url));

let t: TestApp;
let example: ChildProcess;
let exampleUrl: string;
let worker: client.Configuration;
let output = '';
const cli = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, string>>;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  // The README's commands, word for word (`npx gatehouse` runs the same command code).
  const api = await cli(
    'resource-servers',
    'create',
    '--identifier',
    IDENTIFIER,
    '--name',
    'Notes',
    '--scope',
    'notes:read=Read your notes notes:write=Change your notes',
    '--claim',
    'notes:read@department=access_token',
  );
  const created = await cli(
    'clients',
    'create',
    '--name',
    'Notes worker',
    '--type',
    'confidential',
    '--grant-types',
    'client_credentials',
    '--scope',
    'notes:read notes:write',
  );

  const port = await freePort();
  exampleUrl = `http://127.0.0.1:${port}`;
  example = spawnTracked(process.execPath, ['server.mjs'], {
    cwd: exampleDir,
    env: { PATH: process.env.PATH ?? '', ISSUER: t.url, IDENTIFIER, CLIENT_ID: api.client_id!, CLIENT_SECRET: api.client_secret!, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  example.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = new Promise<void>((resolve, reject) => {
    example.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('notes API on')) resolve();
    });
    example.once('exit', (code) => reject(new Error(`the example exited (${code}): ${output}`)));
  });
  await started;

  worker = await client.discovery(new URL(t.url), created.client_id!, undefined, client.ClientSecretBasic(created.client_secret!), {
    execute: [client.allowInsecureRequests],
  });
});
after(async () => {
  if (example && example.exitCode === null) {
    example.kill('SIGTERM');
    await once(example, 'exit');
  }
  await t.close();
});

const call = (method: string, path: string, token: string) => fetch(`${exampleUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
const tokenFor = async (resource: string, scope: string) => (await client.clientCredentialsGrant(worker, { scope, resource })).access_token;

describe('examples/resource-server', () => {
  test('a client_credentials token requested with resource= its identifier (openid-client) is accepted: 200', async () => {
    const res = await call('GET', '/notes', await tokenFor(IDENTIFIER, 'notes:read'));
    assert.equal(res.status, 200, output);
    assert.deepEqual(((await res.json()) as { notes: unknown[] }).notes, [{ id: '1', text: 'Welcome' }]);
  });

  test('the example refuses a token without the route’s scope (403 insufficient_scope) and no token at all (401)', async () => {
    const readOnly = await tokenFor(IDENTIFIER, 'notes:read');
    const res = await call('DELETE', '/notes/1', readOnly);
    assert.equal(res.status, 403);
    assert.match(res.headers.get('www-authenticate') ?? '', /insufficient_scope.*notes:write/);
    assert.equal((await fetch(`${exampleUrl}/notes`)).status, 401);
  });

  test('a token for {ISSUER}/v1 is refused by the example (401), and the example’s token is refused by /v1 (401)', async () => {
    const v1 = await cli(
      'clients',
      'create',
      '--name',
      'Orders worker',
      '--type',
      'confidential',
      '--grant-types',
      'client_credentials',
      '--scope',
      'orders:read',
    );
    const v1Client = await client.discovery(new URL(t.url), v1.client_id!, undefined, client.ClientSecretBasic(v1.client_secret!), {
      execute: [client.allowInsecureRequests],
    });
    const v1Token = (await client.clientCredentialsGrant(v1Client, { scope: 'orders:read', resource: `${t.url}/v1` })).access_token;
    assert.equal((await fetch(`${t.url}/v1/orders`, { headers: { authorization: `Bearer ${v1Token}` } })).status, 200, 'a good token for /v1');
    assert.equal((await call('GET', '/notes', v1Token)).status, 401);
    const notesToken = await tokenFor(IDENTIFIER, 'notes:read');
    assert.equal((await fetch(`${t.url}/v1/orders`, { headers: { authorization: `Bearer ${notesToken}` } })).status, 401);
  });

  test('after revocation the introspection-guarded DELETE is refused at once, while a JWT-only read still passes until expiry', async () => {
    const token = await tokenFor(IDENTIFIER, 'notes:read notes:write');
    await client.tokenRevocation(worker, token, { token_type_hint: 'access_token' });
    const del = await call('DELETE', '/notes/1', token);
    assert.equal(del.status, 401);
    assert.match(del.headers.get('www-authenticate') ?? '', /invalid_token/);
    assert.equal((await call('GET', '/notes', token)).status, 200, 'the read verifies the JWT alone (the documented trade-off)');
    const fresh = await tokenFor(IDENTIFIER, 'notes:read notes:write');
    assert.equal((await call('DELETE', '/notes/1', fresh)).status, 204, 'a live token with notes:write deletes');
  });

  test('a user’s token from the authorization code flow (oauth4webapi, resource=) carries the mapped attribute to the example', async () => {
    const user = await createUser(t.core.db, t.core.clock, { password: PASSWORD });
    await cli('users', 'set-attribute', user.username, 'department', 'sales');
    const fixture = await createClient(t.core.db, t.core.clock, { type: 'confidential', scopes: ['openid', 'notes:read'], grantTypes: ['authorization_code'] });
    const insecure = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(new URL(t.url), await oauth.discoveryRequest(new URL(t.url), insecure));
    const rp = { client_id: fixture.client.id };
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: rp.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'openid notes:read',
      state: 'st',
      resource: IDENTIFIER,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const params = oauth.validateAuthResponse(as, rp, await browserlessLogin(url, { username: user.username }), 'st');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      rp,
      await oauth.authorizationCodeGrantRequest(as, rp, oauth.ClientSecretBasic(fixture.secret!), params, REDIRECT_URI, verifier, {
        ...insecure,
        additionalParameters: { resource: IDENTIFIER },
      }),
    );
    const res = await call('GET', '/notes', tokens.access_token);
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual([body.sub, body.department], [user.id, 'sales']);
  });
});

describe('real client libraries request tokens for two resources with resource (RFC 8707)', () => {
  test('openid-client: one authorization for the example and /v1, then a token for each (code exchange, refresh), each refused by the other API', async () => {
    const user = await createUser(t.core.db, t.core.clock, { password: PASSWORD });
    const fixture = await createClient(t.core.db, t.core.clock, {
      type: 'confidential',
      scopes: ['openid', 'offline_access', 'notes:read', 'orders:read'],
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    const config = await client.discovery(new URL(t.url), fixture.client.id, undefined, client.ClientSecretBasic(fixture.secret!), {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const parameters = new URLSearchParams({
      redirect_uri: REDIRECT_URI,
      scope: 'openid offline_access notes:read orders:read',
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    parameters.append('resource', IDENTIFIER);
    parameters.append('resource', `${t.url}/v1`);
    const callback = await browserlessLogin(client.buildAuthorizationUrl(config, parameters), { username: user.username });
    const forExample = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, { resource: IDENTIFIER });
    const forV1 = await client.refreshTokenGrant(config, forExample.refresh_token!, { resource: `${t.url}/v1` });

    assert.equal((await call('GET', '/notes', forExample.access_token)).status, 200);
    assert.equal((await fetch(`${t.url}/v1/orders`, { headers: { authorization: `Bearer ${forExample.access_token}` } })).status, 401);
    assert.equal((await fetch(`${t.url}/v1/orders`, { headers: { authorization: `Bearer ${forV1.access_token}` } })).status, 200);
    assert.equal((await call('GET', '/notes', forV1.access_token)).status, 401);
  });
});
