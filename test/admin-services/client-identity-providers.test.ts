// Which upstream providers a client's login page offers (docs/federation.md): `clients create
// --identity-providers SLUG,...`, the admin API member `identity_providers` (null: every enabled one), and
// `gatehouse apply`/`export` — one list, checked against the configured providers by the one service.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { storedIdentityProvider } from '../helpers/identity-providers.js';
import { adminFixture, createBody, patchBody, problemOf, type AdminFixture } from '../admin/fixture.js';

let f: AdminFixture;
let dir: string;
before(async () => {
  f = await adminFixture();
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-client-idps-'));
  for (const slug of ['corp', 'social']) {
    await storedIdentityProvider(f.t.core.db, slug);
  }
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await f.t.close();
});

const webClient = ['--type', 'confidential', '--grant-types', 'authorization_code', '--scope', 'openid', '--redirect-uri', 'https://app.example/cb'];

test('clients create --identity-providers restricts the login page to those providers; an unknown slug is a clear error', async () => {
  const created = await f.cli('clients', 'create', '--name', 'Corp app', ...webClient, '--identity-providers', 'corp');
  assert.deepEqual(created.identity_providers, ['corp']);
  const row = await f.t.core.db.selectFrom('clients').select('identity_providers').where('id', '=', String(created.client_id)).executeTakeFirstOrThrow();
  assert.deepEqual(row.identity_providers, ['corp']);
  await assert.rejects(
    f.cli('clients', 'create', '--name', 'Bad', ...webClient, '--identity-providers', 'corp,nope'),
    /"nope" is not a configured identity provider/,
  );
});

test('the admin API shows identity_providers (null: every enabled provider) and changes it by PATCH; an unknown slug is 422', async () => {
  const res = await f.api(
    '/admin/v1/clients',
    createBody({ client_name: 'API app', grant_types: ['authorization_code'], redirect_uris: ['https://app.example/cb'], scope: 'openid' }, randomUUID()),
  );
  assert.equal(res.status, 201);
  const body = (await res.json()) as { client_id: string; identity_providers: string[] | null };
  assert.equal(body.identity_providers, null);
  const path = `/admin/v1/clients/${body.client_id}`;
  const etag = (await f.api(path)).headers.get('etag')!;
  const patched = await f.api(path, patchBody({ identity_providers: ['social'] }, etag));
  assert.equal(patched.status, 200);
  assert.deepEqual(((await patched.json()) as { identity_providers: string[] }).identity_providers, ['social']);
  const etag2 = (await f.api(path)).headers.get('etag')!;
  const bad = await f.api(path, patchBody({ identity_providers: ['nope'] }, etag2));
  assert.equal(bad.status, 422);
  assert.deepEqual(
    (await problemOf(bad)).errors?.map((e) => e.field),
    ['identity_providers'],
  );
});

test("gatehouse apply sets a client's identity_providers and export writes them back", async () => {
  process.env.CLIENT_IDPS_SECRET = `secret-${'s'.repeat(40)}`;
  const file = join(dir, 'config.yaml');
  writeFileSync(
    file,
    `clients:
  - client_id: idp-web
    client_name: IdP web
    client_secret_env: CLIENT_IDPS_SECRET
    grant_types: [authorization_code]
    scope: openid
    redirect_uris: [https://web.example/cb]
    identity_providers: [social, corp]
`,
  );
  await f.cli('apply', '-f', file);
  const row = await f.t.core.db.selectFrom('clients').select('identity_providers').where('id', '=', 'idp-web').executeTakeFirstOrThrow();
  assert.deepEqual([...(row.identity_providers ?? [])].sort(), ['corp', 'social']);
  const exported = (await f.cli('export')).clients as { client_id: string; identity_providers?: string[] }[];
  assert.deepEqual(exported.find((c) => c.client_id === 'idp-web')?.identity_providers?.sort(), ['corp', 'social']);
  // Applying the same file again changes nothing.
  const again = await f.cli('apply', '-f', file);
  assert.doesNotMatch(JSON.stringify(again), /"update"|"updated"/);
});
