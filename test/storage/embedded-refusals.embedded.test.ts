// Data directories the embedded server cannot open are refused in one line naming the fix: another
// PostgreSQL major version, or a PGlite directory from an earlier Gatehouse (still usable with DATABASE_URL=pglite:).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterDir, runningPid } from '../../src/storage/driver/embedded-postgres.js';
import { cli, newDataDir } from './embedded-fixtures.js';

test('start-up refuses a data directory made by another PostgreSQL major version, naming the fix', { timeout: 170_000 }, async (t) => {
  const { dataDir, env } = newDataDir(t);
  mkdirSync(join(dataDir, 'postgres'), { recursive: true, mode: 0o700 });
  writeFileSync(join(dataDir, 'postgres', 'PG_VERSION'), '17\n');
  const result = await cli(env, 'users', 'list');
  assert.equal(result.status, 1);
  assert.match(
    result.stderr,
    /^gatehouse: the embedded database in .* was created by PostgreSQL 17, and this Gatehouse ships PostgreSQL \d+\. .*pg_dump.*pg_upgrade/,
  );
  assert.equal(runningPid(clusterDir(dataDir)), undefined);
});

test('DATABASE_URL=pglite: opens PGlite in DATA_DIR, and the embedded default explains that directory instead of replacing it', {
  timeout: 175_000,
}, async (t) => {
  const { dataDir, env } = newDataDir(t);
  const made = await cli({ ...env, DATABASE_URL: 'pglite:' }, 'users', 'create', '--username', 'bob', '--password', 'long enough password');
  assert.equal(made.status, 0, made.stderr);
  const refused = await cli(env, 'users', 'list');
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /holds a PGlite database from an earlier Gatehouse.*DATABASE_URL=pglite:/);
  assert.ok(!existsSync(clusterDir(dataDir)), 'no server directory was created beside it');
});
