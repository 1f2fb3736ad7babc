// `gatehouse apply` and `gatehouse export` (docs/configuration-as-code.md): one rule per test, against a
// running app and its real database.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { manualClock } from '../../src/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';

const clock = manualClock(Date.now());
let t: TestApp;
let dir: string;
before(async () => {
  t = await startTestApp({ clock, env: NO_LIMITS });
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-apply-'));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

const run = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;
let serial = 0;
function fileOf(text: string): string {
  serial += 1;
  const path = join(dir, `gatehouse-${serial}.yaml`);
  writeFileSync(path, text);
  return path;
}
const secret = (label: string) => `${label}-${'s'.repeat(40)}`;

/** A file with one resource server and one client using its scope; names unique per call. */
function example(tag: string, options: { name?: string; description?: string } = {}) {
  const env = `APPLY_SECRET_${tag.toUpperCase()}`;
  process.env[env] ??= secret(tag);
  return {
    env,
    identifier: `https://${tag}.example/api`,
    clientId: `${tag}-service`,
    text: `
resource_servers:
  - identifier: https://${tag}.example/api
    name: ${tag} API
    scopes:
      - name: ${tag}:read
        description: ${options.description ?? `Read ${tag}`}
clients:
  - client_id: ${tag}-service
    client_name: ${options.name ?? `${tag} service`}
    client_secret_env: ${env}
    grant_types: [client_credentials]
    scope: ${tag}:read
`,
  };
}

const countOf = async (table: 'clients' | 'resource_servers' | 'audit_events') =>
  Number(
    (
      await t.core.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

test('apply creates what is missing: the resource server and a client with the fixed client_id, whose secret (from the env var) obtains a token for the new scope', async () => {
  const e = example('create');
  const result = await run('apply', '-f', fileOf(e.text));
  assert.equal(result.changed, true);
  assert.deepEqual(result.plan, [
    { action: 'create', resource: 'resource_server', id: e.identifier },
    { action: 'create', resource: 'client', id: e.clientId },
  ]);
  const credentials = result.introspection_credentials as { identifier: string; client_secret: string }[];
  assert.equal(credentials[0]?.identifier, e.identifier);
  const token = await postForm(
    `${t.url}/token`,
    { grant_type: 'client_credentials', scope: 'create:read' },
    { authorization: basicAuth(e.clientId, process.env[e.env]!) },
  );
  assert.equal(token.status, 200, JSON.stringify(token.body));
});

test('apply is idempotent: a second run of the same file changes nothing and says so', async () => {
  const e = example('again');
  const path = fileOf(e.text);
  await run('apply', '-f', path);
  const events = await countOf('audit_events');
  const second = await run('apply', '-f', path);
  assert.deepEqual([second.changed, second.summary, second.plan], [false, 'nothing to change', []]);
  assert.equal(await countOf('audit_events'), events, 'no audit event either');
});

test('apply updates what differs, naming the fields, through the services (audit events acting as the CLI, one trace id per run)', async () => {
  const e = example('update');
  await run('apply', '-f', fileOf(e.text));
  const changed = example('update', { name: 'Renamed service', description: 'Read all of it' });
  const result = await run('apply', '-f', fileOf(changed.text));
  assert.deepEqual(result.plan, [
    { action: 'update', resource: 'resource_server', id: e.identifier, fields: ['scopes'] },
    { action: 'update', resource: 'client', id: e.clientId, fields: ['client_name'] },
  ]);
  const client = await t.core.db.selectFrom('clients').select('name').where('id', '=', e.clientId).executeTakeFirstOrThrow();
  assert.equal(client.name, 'Renamed service');
  const events = await t.core.db
    .selectFrom('audit_events')
    .selectAll()
    .where('resource_id', 'in', [e.clientId, e.identifier])
    .where('type', 'like', '%updated')
    .execute();
  assert.equal(events.length, 2);
  assert.ok(events.every((ev) => ev.actor_kind === 'cli' && ev.trace_id?.startsWith('cli:apply:')));
  assert.equal(new Set(events.map((ev) => ev.trace_id)).size, 1);
});

test('--dry-run prints the plan as JSON and changes nothing', async () => {
  const e = example('dry');
  const before = [await countOf('clients'), await countOf('resource_servers'), await countOf('audit_events')];
  const result = await run('apply', '-f', fileOf(e.text), '--dry-run');
  assert.deepEqual([result.dry_run, result.changed], [true, false]);
  assert.equal((result.plan as unknown[]).length, 2);
  assert.match(String(result.summary), /dry run: nothing was changed/);
  assert.deepEqual([await countOf('clients'), await countOf('resource_servers'), await countOf('audit_events')], before);
});

test('what is not in the file is deleted only with --prune (reported otherwise); built-ins never', async () => {
  const extra = await run(
    'clients',
    'create',
    '--name',
    'Not in file',
    '--type',
    'confidential',
    '--grant-types',
    'client_credentials',
    '--scope',
    'orders:read',
  );
  await run('resource-servers', 'create', '--identifier', 'https://extra.example', '--name', 'Extra', '--scope', 'extra:read=Extra');
  const e = example('prune');
  const path = fileOf(e.text);
  const kept = await run('apply', '-f', path);
  const notDeleted = kept.not_deleted as { resource: string; id: string }[];
  assert.ok(notDeleted.some((d) => d.id === extra.client_id));
  assert.ok(notDeleted.some((d) => d.id === 'https://extra.example'));
  assert.ok(!(kept.plan as { action: string }[]).some((s) => s.action === 'delete'));
  assert.equal((await t.core.db.selectFrom('clients').select('id').where('id', '=', String(extra.client_id)).execute()).length, 1);
  const pruned = await run('apply', '-f', path, '--prune');
  const deletes = (pruned.plan as { action: string; id: string }[]).filter((s) => s.action === 'delete').map((s) => s.id);
  assert.ok(deletes.includes(String(extra.client_id)) && deletes.includes('https://extra.example'));
  assert.equal((await t.core.db.selectFrom('clients').select('id').where('id', '=', String(extra.client_id)).execute()).length, 0);
  const builtIns = await t.core.db
    .selectFrom('resource_servers')
    .select('identifier')
    .where('identifier', 'in', [t.config.API_AUDIENCE, `${t.config.ISSUER}/admin`])
    .execute();
  assert.equal(builtIns.length, 2);
  assert.deepEqual((await run('apply', '-f', path, '--prune')).plan, []);
});

test('secrets come from the named environment variable: a missing variable is a clear error before any change', async () => {
  const e = example('noenv');
  const text = `${e.text}  - client_id: noenv-second
    client_name: Second
    client_secret_env: APPLY_NOT_SET_ANYWHERE
    grant_types: [client_credentials]
    scope: noenv:read
`;
  const before = [await countOf('clients'), await countOf('resource_servers')];
  await assert.rejects(
    run('apply', '-f', fileOf(text)),
    (error: Error) =>
      error instanceof UsageError && /clients\[1\]\.client_secret_env: the environment variable APPLY_NOT_SET_ANYWHERE is not set/.test(error.message),
  );
  assert.deepEqual([await countOf('clients'), await countOf('resource_servers')], before);
});

test('a changed secret in the environment variable becomes the client secret on the next apply (the old one stops working)', async () => {
  const e = example('rotate');
  const path = fileOf(e.text);
  await run('apply', '-f', path);
  const old = process.env[e.env]!;
  process.env[e.env] = secret('rotated');
  const result = await run('apply', '-f', path);
  assert.deepEqual(result.plan, [{ action: 'update', resource: 'client', id: e.clientId, fields: ['client_secret'] }]);
  const auth = (s: string) =>
    postForm(`${t.url}/token`, { grant_type: 'client_credentials', scope: 'rotate:read' }, { authorization: basicAuth(e.clientId, s) });
  assert.equal((await auth(process.env[e.env]!)).status, 200);
  assert.equal((await auth(old)).status, 401);
});

test('a literal secret in the file is refused, naming where it is', async () => {
  const text = `clients:
  - client_id: literal
    client_name: Literal
    client_secret: ${secret('literal')}
    grant_types: [client_credentials]
`;
  await assert.rejects(run('apply', '-f', fileOf(text)), (error: Error) =>
    /clients\[0\]\.client_secret: a secret is never written in the file/.test(error.message),
  );
  assert.equal((await t.core.db.selectFrom('clients').select('id').where('id', '=', 'literal').execute()).length, 0);
});

test('unknown keys are refused with their path (clients[1].redirect_uri), before any change', async () => {
  const e = example('unknown');
  const text = `${e.text}  - client_id: unknown-web
    client_name: Web
    token_endpoint_auth_method: none
    grant_types: [authorization_code]
    redirect_uri: https://web.example/cb
`;
  await assert.rejects(
    run('apply', '-f', fileOf(text)),
    (error: Error) => error instanceof UsageError && /clients\[1\]\.redirect_uri: is not a known key/.test(error.message),
  );
  assert.equal((await t.core.db.selectFrom('resource_servers').select('identifier').where('identifier', '=', e.identifier).execute()).length, 0);
  await assert.rejects(run('apply', '-f', fileOf('clientz: []\n')), /clientz: is not a known key/);
});

test('the file is bounded: over 1 MiB, or YAML aliases expanding without bound, is refused', async () => {
  await assert.rejects(run('apply', '-f', fileOf(`# ${'x'.repeat(1024 * 1024)}\nclients: []\n`)), /larger than/);
  const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 0; i < 12; i++)
    lines.push(
      `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
    );
  await assert.rejects(run('apply', '-f', fileOf(`${lines.join('\n')}\n`)), UsageError);
});

test('a failing item rolls back all: nothing of the file is half-applied', async () => {
  const e = example('rollback');
  const text = `${e.text}  - client_id: rollback-web
    client_name: Web
    token_endpoint_auth_method: none
    grant_types: [authorization_code]
    redirect_uris: ["not a uri"]
`;
  const before = [await countOf('clients'), await countOf('resource_servers'), await countOf('audit_events')];
  await assert.rejects(run('apply', '-f', fileOf(text)), (error: Error) => /clients\[1\]/.test(error.message));
  assert.deepEqual([await countOf('clients'), await countOf('resource_servers'), await countOf('audit_events')], before);
});

test('export → apply --dry-run is an empty plan (YAML file and JSON on stdout alike); export writes no secret', async () => {
  const e = example('roundtrip');
  await run('apply', '-f', fileOf(e.text));
  await run(
    'clients',
    'create',
    '--name',
    'Browser app',
    '--type',
    'public',
    '--grant-types',
    'authorization_code',
    '--redirect-uri',
    'https://app.example/cb',
    '--scope',
    'openid',
    '--allowed-origin',
    'https://other.example',
  );
  const out = join(dir, 'exported.yaml');
  await run('export', '-o', out);
  const exported = readFileSync(out, 'utf8');
  assert.ok(!exported.includes(process.env[e.env]!), 'no secret in the export');
  assert.match(exported, /client_secret_env: GATEHOUSE_SECRET_ROUNDTRIP_SERVICE/);
  // The placeholders name variables the operator sets; here, to the secrets the clients have.
  const clients = (await run('export')).clients as { client_id: string; client_secret_env?: string }[];
  for (const c of clients) if (c.client_secret_env) process.env[c.client_secret_env] = c.client_id === e.clientId ? process.env[e.env] : 'unknown';
  const plan = (await run('apply', '-f', out, '--dry-run')).plan as { id: string; fields?: string[] }[];
  const others = plan.filter((s) => s.id !== e.clientId && !(s.fields?.length === 1 && s.fields[0] === 'client_secret'));
  assert.deepEqual(others, [], 'only the secrets this test could not know differ');
  assert.ok(!plan.some((s) => s.id === e.clientId));
  const json = fileOf(JSON.stringify(await run('export')));
  const fromJson = ((await run('apply', '-f', json, '--dry-run')).plan as { fields?: string[] }[]).filter(
    (s) => !(s.fields?.length === 1 && s.fields[0] === 'client_secret'),
  );
  assert.deepEqual(fromJson, []);
});

test('two apply runs of one file in parallel both succeed and end in one state: each entry exists once, created by exactly one run', async () => {
  const e = example('parallel');
  const path = fileOf(e.text);
  const [a, b] = await Promise.all([run('apply', '-f', path), run('apply', '-f', path)]);
  assert.deepEqual([a.changed, b.changed].sort(), [false, true]);
  assert.equal((await t.core.db.selectFrom('clients').select('id').where('id', '=', e.clientId).execute()).length, 1);
  assert.equal((await t.core.db.selectFrom('clients').select('id').where('name', '=', 'parallel API (resource server)').execute()).length, 1);
  assert.equal((await t.core.db.selectFrom('resource_servers').select('identifier').where('identifier', '=', e.identifier).execute()).length, 1);
});
