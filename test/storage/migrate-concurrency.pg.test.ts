import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { loadMigrations } from '../../src/storage/driver/migrate.js';
import { adminUrl, databaseUrl } from '../helpers/database.js';
import { randomBytes } from 'node:crypto';
import { spawnTracked } from '../helpers/children.js';

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawnTracked(process.execPath, ['--import', 'tsx', 'test/helpers/cli-entry.ts', ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('two processes migrating one empty PostgreSQL database at once apply each migration exactly once', async () => {
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  const name = `mig_${randomBytes(5).toString('hex')}`;
  await admin.query(`create database ${name}`);
  try {
    const env = { DATABASE_URL: databaseUrl(name), DATA_DIR: '/tmp', KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url') };
    const [a, b] = await Promise.all([runCli(['migrate'], env), runCli(['migrate'], env)]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const applied = [...JSON.parse(a.stdout).applied, ...JSON.parse(b.stdout).applied].sort();
    assert.deepEqual(
      applied,
      loadMigrations()
        .map((m) => m.version)
        .sort(),
      'every migration applied by exactly one of the two',
    );
    const check = new pg.Client({ connectionString: databaseUrl(name) });
    await check.connect();
    const { rows } = await check.query('select version, count(*)::int as n from schema_migrations group by version');
    await check.end();
    assert.ok(rows.every((r) => r.n === 1));
    assert.equal(rows.length, loadMigrations().length);
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
});
