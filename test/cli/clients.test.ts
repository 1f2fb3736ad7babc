// `gatehouse clients create|list|delete` and `registration-token create`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { sha256 } from '../../src/crypto/random.js';
import { manualClock } from '../../src/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';

const clock = manualClock(Date.now());
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock, env: NO_LIMITS });
});
after(() => t.close());

const run = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;

test('a client created with the CLI obtains tokens with the secret it printed', async () => {
  const created = await run('clients', 'create', '--name', 'Svc', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'orders:read');
  const res = await postForm(
    `${t.url}/token`,
    { grant_type: 'client_credentials' },
    { authorization: basicAuth(String(created.client_id), String(created.client_secret)) },
  );
  assert.equal(res.status, 200);
  const row = await t.core.db.selectFrom('clients').select('secret_hash').where('id', '=', String(created.client_id)).executeTakeFirstOrThrow();
  assert.equal(row.secret_hash, sha256(String(created.client_secret)));
});

test('--secret imports an existing secret of at least 32 characters, and refuses shorter ones', async () => {
  const secret = 'imported: secret + with % odd / chars = ok';
  const created = await run(
    'clients',
    'create',
    '--name',
    'Old',
    '--type',
    'confidential',
    '--grant-types',
    'client_credentials',
    '--scope',
    'orders:read',
    '--secret',
    secret,
  );
  assert.equal(created.client_secret, secret);
  const res = await postForm(`${t.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(String(created.client_id), secret) });
  assert.equal(res.status, 200);
  await assert.rejects(
    run('clients', 'create', '--name', 'Old', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'orders:read', '--secret', 'short'),
    UsageError,
  );
});

test('a public client gets no secret, auth method none, and needs a redirect URI', async () => {
  const created = await run(
    'clients',
    'create',
    '--name',
    'SPA',
    '--type',
    'public',
    '--grant-types',
    'authorization_code,refresh_token',
    '--scope',
    'openid profile',
    '--redirect-uri',
    'http://localhost:5173/cb',
  );
  assert.equal(created.client_secret, undefined);
  assert.equal(created.token_endpoint_auth_method, 'none');
  assert.deepEqual(created.redirect_uris, ['http://localhost:5173/cb']);
  await assert.rejects(run('clients', 'create', '--name', 'SPA', '--type', 'public', '--grant-types', 'authorization_code', '--scope', 'openid'), UsageError);
  await assert.rejects(
    run(
      'clients',
      'create',
      '--name',
      'SPA',
      '--type',
      'public',
      '--auth-method',
      'client_secret_basic',
      '--grant-types',
      'authorization_code',
      '--scope',
      'openid',
      '--redirect-uri',
      'https://a.example/cb',
    ),
    UsageError,
  );
});

test('clients create accepts several redirect URIs, post-logout URIs and --skip-consent', async () => {
  const created = await run(
    'clients',
    'create',
    '--name',
    'Web',
    '--type',
    'confidential',
    '--grant-types',
    'authorization_code',
    '--scope',
    'openid',
    '--redirect-uri',
    'https://app.example/cb',
    '--redirect-uri',
    'https://app.example/cb2?x=1',
    '--post-logout-redirect-uri',
    'https://app.example/bye',
    '--skip-consent',
  );
  assert.deepEqual(created.redirect_uris, ['https://app.example/cb', 'https://app.example/cb2?x=1']);
  assert.deepEqual(created.post_logout_redirect_uris, ['https://app.example/bye']);
  assert.equal(created.skip_consent, true);
  assert.equal(created.id_token_signed_response_alg, 'RS256');
});

test('clients create rejects invalid redirect URIs, unknown grant types and unknown scopes', async () => {
  const base = ['clients', 'create', '--name', 'W', '--type', 'confidential', '--grant-types', 'authorization_code', '--scope', 'openid'];
  for (const uri of ['http://app.example/cb', 'https://app.example/cb#frag', '/relative', 'javascript:alert(1)']) {
    await assert.rejects(run(...base, '--redirect-uri', uri), UsageError, uri);
  }
  await assert.rejects(run('clients', 'create', '--name', 'W', '--type', 'confidential', '--grant-types', 'password', '--scope', 'openid'), UsageError);
  await assert.rejects(
    run('clients', 'create', '--name', 'W', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'admin'),
    UsageError,
  );
});

test('clients create --auth-method private_key_jwt --jwks FILE registers public keys and refuses private ones', async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-jwks-'));
  try {
    writeFileSync(join(dir, 'public.json'), JSON.stringify({ keys: [await exportJWK(publicKey)] }));
    writeFileSync(join(dir, 'private.json'), JSON.stringify({ keys: [await exportJWK(privateKey)] }));
    const args = [
      'clients',
      'create',
      '--name',
      'K',
      '--type',
      'confidential',
      '--grant-types',
      'client_credentials',
      '--scope',
      'orders:read',
      '--auth-method',
      'private_key_jwt',
    ];
    const created = await run(...args, '--jwks', join(dir, 'public.json'));
    assert.equal(created.client_secret, undefined);
    assert.equal(created.token_endpoint_auth_method, 'private_key_jwt');
    await assert.rejects(run(...args, '--jwks', join(dir, 'private.json')), /public keys only/);
    await assert.rejects(run(...args), /jwks/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('clients delete removes the client; its credentials stop working within CLIENT_CACHE_TTL; an unknown id is a usage error', async () => {
  const created = await run('clients', 'create', '--name', 'Tmp', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'orders:read');
  assert.deepEqual(await run('clients', 'delete', String(created.client_id)), { deleted: created.client_id });
  clock.advance((t.config.CLIENT_CACHE_TTL + 1) * 1000);
  const res = await postForm(
    `${t.url}/token`,
    { grant_type: 'client_credentials' },
    { authorization: basicAuth(String(created.client_id), String(created.client_secret)) },
  );
  assert.equal(res.status, 401);
  await assert.rejects(run('clients', 'delete', 'no-such-client'), UsageError);
});

test('registration-token create prints a token once and stores only its hash', async () => {
  const created = await run('registration-token', 'create', '--ttl', '600');
  const token = String(created.initial_access_token);
  assert.ok(Buffer.from(token, 'base64url').length >= 32);
  const rows = await t.core.db.selectFrom('initial_access_tokens').selectAll().execute();
  assert.ok(rows.some((r) => r.token_hash === sha256(token)));
  assert.ok(!JSON.stringify(rows).includes(token));
  await assert.rejects(run('registration-token', 'create', '--ttl', 'soon'), UsageError);
});

test('clients delete and disable take a client id that starts with "-" after "--" (ids made before generated ids avoided a leading "-")', async () => {
  const created = await run('clients', 'create', '--name', 'Dash', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'orders:read');
  const dashed = `-${String(created.client_id)}`;
  await t.core.db.updateTable('clients').set({ id: dashed }).where('id', '=', String(created.client_id)).execute();
  assert.deepEqual(await run('clients', 'disable', '--', dashed), { disabled: dashed });
  assert.deepEqual(await run('clients', 'delete', '--', dashed), { deleted: dashed });
  await assert.rejects(run('clients', 'delete'), UsageError);
});
