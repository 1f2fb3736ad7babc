// examples/protect-existing-service/: an existing service with no OAuth at all, and `gatehouse protect` in front
// of it, both run as the README says (the service with plain node, the proxy through the CLI), against a real
// Gatehouse with the routes stored at registration.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { spawnTracked } from '../helpers/children.js';
import { protectArgs, registerWithClient, spawnProtect } from '../helpers/protect.js';
import { freePort } from '../../scripts/pg-cluster.mjs';

let t: TestApp;
let service: ChildProcess;
let proxy: ChildProcess;
let proxyUrl: string;
let serviceUrl: string;
let basic: string;
let resource: string;

async function waitFor(child: ChildProcess, text: string): Promise<void> {
  let out = '';
  while (!out.includes(text)) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${out}`);
    out += String((await once(child.stdout!, 'data'))[0]);
  }
}

before(async () => {
  t = await startTestApp();
  const proxyPort = await freePort();
  const servicePort = await freePort();
  resource = `http://127.0.0.1:${proxyPort}/`;
  const { credentials, service: client } = await registerWithClient(t.core, resource, {
    name: 'Notes',
    scope: 'notes:read=Read your notes notes:write=Change your notes',
    routes: ['GET /notes*=notes:read', 'POST /notes*=notes:write'],
    clientScopes: ['notes:read', 'notes:write'],
  });
  basic = `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`;
  service = spawnTracked(process.execPath, ['examples/protect-existing-service/service.mjs'], {
    env: { ...process.env, PORT: String(servicePort) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await waitFor(service, 'existing service on');
  serviceUrl = `http://127.0.0.1:${servicePort}`;
  proxy = spawnProtect(protectArgs({ resource, upstream: serviceUrl, issuer: t.url, port: proxyPort }), credentials, ['ignore', 'pipe', 'inherit']);
  await waitFor(proxy, '"protect listening"');
  proxyUrl = `http://127.0.0.1:${proxyPort}`;
});

after(async () => {
  proxy.kill('SIGTERM');
  service.kill('SIGTERM');
  await t.close();
});

async function token(scope: string): Promise<string> {
  const response = await fetch(`${t.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

test('the existing service behind protect: the caller’s identity arrives in its headers, the routes’ scopes are enforced', async () => {
  const written = await fetch(`${proxyUrl}/notes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await token('notes:read notes:write')}` },
    body: 'hello',
  });
  assert.equal(written.status, 201);
  const read = await fetch(`${proxyUrl}/notes`, { headers: { authorization: `Bearer ${await token('notes:read')}` } });
  const body = (await read.json()) as { notes: { text: string }[]; scopes: string[] };
  assert.deepEqual(
    body.notes.map((n) => n.text),
    ['hello'],
  );
  assert.deepEqual(body.scopes, ['notes:read']);
  const refused = await fetch(`${proxyUrl}/notes`, { method: 'POST', headers: { authorization: `Bearer ${await token('notes:read')}` }, body: 'x' });
  assert.equal(refused.status, 403);
  assert.equal((await fetch(`${proxyUrl}/notes`)).status, 401);
});
