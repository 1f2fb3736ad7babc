import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMigrations, migrate } from '../../src/storage/driver/migrate.js';
import { createTestDatabase } from '../helpers/database.js';

test('migrations are idempotent: a second run applies nothing and changes nothing', async () => {
  const database = await createTestDatabase();
  try {
    assert.deepEqual(await migrate(database.db), []);
    const { rows } = await sql<{ version: string }>`select version from schema_migrations order by version`.execute(database.db);
    assert.deepEqual(
      rows.map((r) => r.version),
      loadMigrations().map((m) => m.version),
    );
  } finally {
    await database.close();
  }
});

test('migration files are forward-only and uniquely numbered', () => {
  const versions = loadMigrations().map((m) => m.version.slice(0, 4));
  assert.equal(new Set(versions).size, versions.length);
});

test('one SQL file per migration: a stray file or a second file with a taken number is refused', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-migrations-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, '0001_first.sql'), 'select 1;');
  assert.deepEqual(
    loadMigrations(dir).map((m) => m.version),
    ['0001_first'],
  );
  writeFileSync(join(dir, '0002-typo.sql'), 'select 1;');
  assert.throws(() => loadMigrations(dir), /not a migration file.*0002-typo\.sql/);
  rmSync(join(dir, '0002-typo.sql'));
  writeFileSync(join(dir, '0001_second.sql'), 'select 1;');
  assert.throws(() => loadMigrations(dir), /more than one file numbered 0001/);
});

test('src/storage/driver/schema.ts is generated from the current migrations', () => {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/gen-db-types.ts', '--check'], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
});
