// The token-exchange policy through every face that writes it (docs/token-exchange.md): a resource server's
// token_exchange_clients and a client's token_exchange_impersonation in /admin/v1, and both in
// `gatehouse apply` / `export` files.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeCommand } from '../../src/cli/execute.js';
import { adminFixture, createBody, patchBody, problemOf, type AdminFixture } from './fixture.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
let f: AdminFixture;
let dir: string;
before(async () => {
  f = await adminFixture();
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-exchange-'));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await f.t.close();
});

const cli = (...argv: string[]) => executeCommand(argv, f.t.core) as Promise<Record<string, unknown>>;
const path = (identifier: string) => `/admin/v1/resource-servers/${encodeURIComponent(identifier)}`;

async function exchangeClient(body: Record<string, unknown> = {}) {
  const res = await f.api(
    '/admin/v1/clients',
    createBody(
      { client_name: 'backend', grant_types: [EXCHANGE], scope: 'orders:read', token_endpoint_auth_method: 'client_secret_basic', ...body },
      crypto.randomUUID(),
    ),
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('the admin API writes and shows token_exchange_clients, and refuses a client that cannot exchange (422 naming the member)', async () => {
  const backend = await exchangeClient();
  assert.equal(backend.status, 201, JSON.stringify(backend.body));
  const created = await f.api(
    '/admin/v1/resource-servers',
    createBody(
      {
        identifier: 'https://ledger.example/api',
        name: 'Ledger',
        scopes: [{ name: 'ledger:read', description: 'Read the ledger' }],
        token_exchange_clients: [backend.body.client_id],
      },
      crypto.randomUUID(),
    ),
  );
  assert.equal(created.status, 201, await created.clone().text());
  assert.deepEqual(((await created.json()) as Record<string, unknown>).token_exchange_clients, [backend.body.client_id]);
  const read = await f.api(path('https://ledger.example/api'));
  const etag = read.headers.get('etag')!;
  assert.deepEqual(((await read.json()) as Record<string, unknown>).token_exchange_clients, [backend.body.client_id]);

  const plain = await f.api(
    '/admin/v1/clients',
    createBody(
      { client_name: 'cc', grant_types: ['client_credentials'], scope: 'orders:read', token_endpoint_auth_method: 'client_secret_basic' },
      crypto.randomUUID(),
    ),
  );
  const plainId = ((await plain.json()) as { client_id: string }).client_id;
  const refused = await f.api(path('https://ledger.example/api'), patchBody({ token_exchange_clients: [plainId] }, etag));
  assert.equal(refused.status, 422);
  assert.equal((await problemOf(refused)).errors?.[0]?.field, 'token_exchange_clients');
  // A merge patch that leaves the member out keeps the list.
  const renamed = await f.api(path('https://ledger.example/api'), patchBody({ name: 'Ledger 2' }, etag));
  assert.equal(renamed.status, 200, await renamed.clone().text());
  assert.deepEqual(((await renamed.json()) as Record<string, unknown>).token_exchange_clients, [backend.body.client_id]);
});

test('the admin API refuses token_exchange_impersonation for a client without the grant type, and shows it when set', async () => {
  const refused = await f.api(
    '/admin/v1/clients',
    createBody(
      {
        client_name: 'x',
        grant_types: ['client_credentials'],
        scope: 'orders:read',
        token_endpoint_auth_method: 'client_secret_basic',
        token_exchange_impersonation: true,
      },
      crypto.randomUUID(),
    ),
  );
  assert.equal(refused.status, 422);
  assert.equal((await problemOf(refused)).errors?.[0]?.field, 'token_exchange_impersonation');
  const allowed = await exchangeClient({ token_exchange_impersonation: true });
  assert.equal(allowed.status, 201, JSON.stringify(allowed.body));
  assert.equal(allowed.body.token_exchange_impersonation, true);
});

test('the admin API turns token_exchange_impersonation on and off for an existing client (merge patch), as `clients update` does; audited, kept by other patches', async () => {
  const backend = await exchangeClient();
  const id = String(backend.body.client_id);
  const clientPath = `/admin/v1/clients/${encodeURIComponent(id)}`;
  const patch = async (body: Record<string, unknown>) => {
    const etag = (await f.api(clientPath)).headers.get('etag')!;
    const res = await f.api(clientPath, patchBody(body, etag));
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as Record<string, unknown>;
  };
  assert.equal((await patch({ token_exchange_impersonation: true })).token_exchange_impersonation, true);
  assert.equal((await patch({ client_name: 'backend 2' })).token_exchange_impersonation, true, 'a patch leaving it out keeps it');
  assert.equal((await patch({ token_exchange_impersonation: false })).token_exchange_impersonation, false);
  const events = await f.t.core.db
    .selectFrom('audit_events')
    .select('changed_fields')
    .where('type', '=', 'admin.client.updated')
    .where('resource_id', '=', id)
    .execute();
  assert.deepEqual(events.map((e) => e.changed_fields.join(',')).sort(), ['client_name', 'token_exchange_impersonation', 'token_exchange_impersonation']);
  // The CLI writes the same member of the same record.
  const updated = await cli('clients', 'update', id, '--token-exchange-impersonation', 'on');
  assert.equal(updated.token_exchange_impersonation, true);
  assert.equal(((await (await f.api(clientPath)).json()) as Record<string, unknown>).token_exchange_impersonation, true);
});

test('apply writes token_exchange_clients naming a client of the same file, and export writes both settings back', async () => {
  process.env.EXCHANGE_APPLY_SECRET = 'e'.repeat(43);
  const file = join(dir, 'gatehouse.yaml');
  writeFileSync(
    file,
    `
resource_servers:
  - identifier: https://payroll.example/api
    name: Payroll
    scopes:
      - name: payroll:read
        description: Read payroll
    token_exchange_clients: [payroll-backend]
clients:
  - client_id: payroll-backend
    client_name: Payroll backend
    client_secret_env: EXCHANGE_APPLY_SECRET
    grant_types: [${EXCHANGE}]
    scope: payroll:read
    token_exchange_impersonation: true
`,
  );
  const result = await cli('apply', '-f', file);
  assert.equal(result.changed, true, JSON.stringify(result));
  const server = (await (await f.api(path('https://payroll.example/api'))).json()) as Record<string, unknown>;
  assert.deepEqual(server.token_exchange_clients, ['payroll-backend']);
  const again = await cli('apply', '-f', file);
  assert.equal(again.changed, false, JSON.stringify(again));
  const exported = await cli('export');
  const entry = (exported.resource_servers as Record<string, unknown>[]).find((s) => s.identifier === 'https://payroll.example/api')!;
  assert.deepEqual(entry.token_exchange_clients, ['payroll-backend']);
  const client = (exported.clients as Record<string, unknown>[]).find((c) => c.client_id === 'payroll-backend')!;
  assert.equal(client.token_exchange_impersonation, true);
});
