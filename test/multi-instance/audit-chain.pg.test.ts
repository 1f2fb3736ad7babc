// The audit chain across two real server processes on one PostgreSQL (docs/audit-log.md): admin requests sent
// to both at once produce one gapless chain that `gatehouse audit verify` (run as an operator would) proves;
// after a row is edited with raw SQL the command names it and exits 1.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { createAdminClient } from '../helpers/admin-client.js';
import { createPostgresDatabaseUrl } from '../helpers/database.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';
import { startInstances, type Instances } from './instances.js';

const run = promisify(execFile);
let database: { url: string; drop(): Promise<void> };
let instances: Instances;

before(async () => {
  database = await createPostgresDatabaseUrl();
  instances = await startInstances({ databaseUrl: database.url, env: { ...NO_LIMITS } });
});
after(async () => {
  await instances?.stop();
  await database?.drop();
});

async function verifyCli(): Promise<{
  code: number;
  verdict: { ok: boolean; verified: number; broken?: { seq: number; id: string; reason: string } };
  stderr: string;
}> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'test/helpers/cli-entry.ts', 'audit', 'verify'], {
      env: { ...process.env, ...instances.env },
      encoding: 'utf8',
    });
    return { code: 0, verdict: JSON.parse(stdout), stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, verdict: JSON.parse(e.stdout), stderr: e.stderr };
  }
}

test('admin requests sent to two instances at once make one chain that audit verify proves; an edited row makes it exit 1 naming the row', async () => {
  const admin = await createAdminClient(instances.cli, 'Operator');
  const tokenAt = async (base: string) =>
    String(
      (await postForm(`${base}/token`, { grant_type: 'client_credentials', scope: 'admin:write' }, { authorization: basicAuth(admin.id, admin.secret) })).body
        .access_token,
    );
  const tokens = { a: await tokenAt(instances.a.url), b: await tokenAt(instances.b.url) };
  const create = (base: string, token: string, i: number) =>
    fetch(`${base}/admin/v1/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({
        client_name: `Parallel ${i}`,
        grant_types: ['client_credentials'],
        scope: 'orders:read',
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
  const responses = await Promise.all(
    Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? create(instances.a.url, tokens.a, i) : create(instances.b.url, tokens.b, i))),
  );
  for (const response of responses) assert.equal(response.status, 201, await response.clone().text());

  const passed = await verifyCli();
  assert.equal(passed.code, 0, passed.stderr);
  assert.equal(passed.verdict.ok, true);
  assert.ok(passed.verdict.verified >= 41, `every event linked (${passed.verdict.verified})`);

  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; chain_seq: number }>(
      `select id, chain_seq from audit_events where type = 'admin.client.created' order by chain_seq limit 1 offset 10`,
    );
    const target = rows[0]!;
    await client.query('begin');
    await client.query('set local session_replication_role = replica');
    await client.query(`update audit_events set changed_fields = '{}' where id = $1`, [target.id]);
    await client.query('commit');
    const failed = await verifyCli();
    assert.equal(failed.code, 1);
    assert.equal(failed.verdict.ok, false);
    assert.deepEqual(
      { seq: failed.verdict.broken?.seq, id: failed.verdict.broken?.id, reason: failed.verdict.broken?.reason },
      { seq: Number(target.chain_seq), id: target.id, reason: 'modified' },
    );
    assert.match(failed.stderr, new RegExp(`audit chain broken: link ${target.chain_seq} \\(event ${target.id}\\) was modified`));
  } finally {
    await client.end();
  }
});
