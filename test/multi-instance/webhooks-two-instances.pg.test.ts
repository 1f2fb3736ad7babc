// Webhooks and logout tokens from two Gatehouse processes on one PostgreSQL database (docs/webhooks.md,
// docs/outbox.md): changes made through both instances' admin APIs are delivered to a receiver started by
// the test exactly once each — whichever instance claims a message — in order per user, every one verified
// with `standardwebhooks`; and an outage of the receiver, with both workers retrying, loses and doubles nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { createAdminClient } from '../helpers/admin-client.js';
import { createPostgresDatabaseUrl } from '../helpers/database.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { startInstances, type Instances } from './instances.js';

let database: { url: string; drop(): Promise<void> };
let gh: Instances;
let receiver: Receiver;
let secret: string;
let tokens: { a: string; b: string };

before(async () => {
  database = await createPostgresDatabaseUrl();
  receiver = await startReceiver();
  gh = await startInstances({ databaseUrl: database.url, env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_TOKEN: '100000' } });
  const hook = await gh.cli('webhooks', 'create', '--name', 'two-instances', '--url', receiver.url, '--events', 'user.created,user.updated');
  secret = String(hook.secret);
  const admin = await createAdminClient(gh.cli, 'Ops');
  const token = async (url: string) =>
    String(
      (
        await postForm(
          `${url}/token`,
          { grant_type: 'client_credentials', scope: 'admin:read admin:write' },
          { authorization: basicAuth(admin.id, admin.secret) },
        )
      ).body.access_token,
    );
  tokens = { a: await token(gh.a.url), b: await token(gh.b.url) };
});
after(async () => {
  await gh?.stop();
  await receiver?.close();
  await database?.drop();
});

async function api(instance: 'a' | 'b', path: string, init: RequestInit): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${tokens[instance]}`);
  return fetch(`${gh[instance].url}${path}`, { ...init, headers });
}

/** A user created through one instance and changed twice through the other. */
async function userWithHistory(index: number): Promise<string> {
  const [first, second] = index % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
  const created = await api(first, '/admin/v1/users', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ username: `mi-${index}-${Date.now()}`, password: 'correct horse battery staple' }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  let etag = created.headers.get('etag')!;
  const { id } = (await created.json()) as { id: string };
  for (const email of [`one-${index}@example.com`, `two-${index}@example.com`]) {
    const patched = await api(second, `/admin/v1/users/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
      body: JSON.stringify({ email }),
    });
    assert.equal(patched.status, 200, await patched.clone().text());
    etag = patched.headers.get('etag')!;
  }
  return id;
}

function check(expectedUsers: readonly string[], count: number): void {
  const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
  assert.equal(ids.length, count);
  assert.equal(new Set(ids).size, count, 'no message delivered twice');
  const events = receiver.received.map((r) => {
    const headers = {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    };
    return new Webhook(secret).verify(r.body, headers) as { type: string; data: { user_id: string } };
  });
  for (const user of expectedUsers) {
    assert.deepEqual(
      events.filter((e) => e.data.user_id === user).map((e) => e.type),
      ['user.created', 'user.updated', 'user.updated'],
      user,
    );
  }
}

test('changes made through both instances are delivered exactly once each, in order per user, signed', async () => {
  const users: string[] = [];
  for (let i = 0; i < 8; i++) users.push(await userWithHistory(i));
  await receiver.waitFor(24, 60_000);
  // A moment more: a second delivery of any message would arrive now.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  check(users, 24);
});

test('the receiver stopped for a while, both instances retrying: after it returns every message arrives once, in order per user', async () => {
  receiver.received.length = 0;
  await receiver.stop();
  const users: string[] = [];
  for (let i = 10; i < 14; i++) users.push(await userWithHistory(i));
  // Both workers have tried (connection refused) and backed off at least once.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await receiver.restart();
  // The first retry comes 10-12 s after the failure; the messages behind it follow.
  await receiver.waitFor(12, 90_000);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  check(users, 12);
});
