// examples/kit-api/ (the resource-server kit in a small node:http API) run as a child process against a real
// Gatehouse: it accepts its own tokens, refuses another resource's and a missing scope with the kit's
// challenges, and refuses a token revoked at Gatehouse within 1 s (the revocation feed it follows).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { spawnTracked } from '../helpers/children.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { executeCommand } from '../../src/cli/execute.js';
import { freePort } from '../../scripts/pg-cluster.mjs';

const IDENTIFIER = 'https://notes.example.com/api';
let t: TestApp;
let example: ChildProcess;
let url: string;
let basic: string;

before(async () => {
  t = await startTestApp();
  const api = (await executeCommand(
    ['resource-servers', 'create', '--identifier', IDENTIFIER, '--name', 'Notes', '--scope', 'notes:read=Read your notes notes:write=Change your notes'],
    t.core,
  )) as { client_id: string; client_secret: string };
  const service = await createClient(t.core.db, t.core.clock, {
    type: 'confidential',
    grantTypes: ['client_credentials'],
    scopes: ['notes:read', 'notes:write', 'users:read'],
  });
  basic = `Basic ${Buffer.from(`${service.client.id}:${service.secret}`).toString('base64')}`;
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  // --import tsx: the workspace package from its sources, as the rest of the suite (a user runs `node server.mjs` after `npm run build`).
  example = spawnTracked(process.execPath, ['--import', 'tsx', 'examples/kit-api/server.mjs'], {
    env: { ...process.env, ISSUER: t.url, IDENTIFIER, CLIENT_ID: api.client_id, CLIENT_SECRET: api.client_secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  while (!out.includes('notes API (kit) on')) out += String((await once(example.stdout!, 'data'))[0]);
});

after(async () => {
  example.kill('SIGTERM');
  await t.close();
});

async function token(scope: string, resource = IDENTIFIER): Promise<string> {
  const response = await fetch(`${t.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

test('the kit example serves its own tokens, with the caller’s identity', async () => {
  const read = await fetch(`${url}/api/notes`, { headers: { authorization: `Bearer ${await token('notes:read')}` } });
  assert.equal(read.status, 200);
  assert.equal(((await read.json()) as { notes: unknown[] }).notes.length, 1);
  const write = await fetch(`${url}/api/notes`, { method: 'POST', headers: { authorization: `Bearer ${await token('notes:write')}` }, body: '{"text":"hi"}' });
  assert.equal(write.status, 201);
});

test('the kit example refuses another resource’s token (401) and a missing scope (403 naming it)', async () => {
  const other = await fetch(`${url}/api/notes`, { headers: { authorization: `Bearer ${await token('users:read', t.config.API_AUDIENCE)}` } });
  assert.equal(other.status, 401);
  const scope = await fetch(`${url}/api/notes`, { method: 'POST', headers: { authorization: `Bearer ${await token('notes:read')}` }, body: '{}' });
  assert.equal(scope.status, 403);
  assert.match(scope.headers.get('www-authenticate') ?? '', /scope="notes:write"/);
  const none = await fetch(`${url}/api/notes`);
  assert.match(
    none.headers.get('www-authenticate') ?? '',
    /^Bearer resource_metadata="https:\/\/notes\.example\.com\/\.well-known\/oauth-protected-resource\/api"$/,
  );
});

test('the kit example refuses a token revoked at Gatehouse within 1 s', async () => {
  const access = await token('notes:read');
  assert.equal((await fetch(`${url}/api/notes`, { headers: { authorization: `Bearer ${access}` } })).status, 200);
  await fetch(`${t.url}/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
    body: new URLSearchParams({ token: access }),
  });
  const deadline = Date.now() + 1000;
  let status = 200;
  while (status === 200 && Date.now() < deadline) {
    status = (await fetch(`${url}/api/notes`, { headers: { authorization: `Bearer ${access}` } })).status;
    if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(status, 401);
});
