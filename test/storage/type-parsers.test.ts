import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase, postgresPool } from '../../src/storage/driver/database.js';
import { createTestDatabase } from '../helpers/database.js';

test('no process-global type parsers: loading the storage layer leaves pg.types as pg ships them', () => {
  // Another user of `pg` in the same process keeps int8 as an exact string.
  assert.equal(pg.types.getTypeParser(20, 'text')('9007199254740993'), '9007199254740993');
  const pool = postgresPool('postgres://127.0.0.1:1/none', 1);
  assert.equal(pg.types.getTypeParser(20, 'text')('42'), '42');
  void pool.end();
});

test('per-database type parsers: int8 (count(*), bigint) reads as a number on the database Gatehouse opens', async () => {
  const database = await createTestDatabase();
  try {
    const { rows } = await sql<{ n: unknown; c: unknown }>`select 42::int8 as n, (select count(*) from users) as c`.execute(database.db);
    assert.equal(rows[0]?.n, 42);
    assert.equal(typeof rows[0]?.c, 'number');
  } finally {
    await database.close();
  }
  const embedded = await openDatabase({ DATA_DIR: '', DATABASE_POOL_SIZE: 1, inMemory: true });
  try {
    const { rows } = await sql<{ n: unknown }>`select 42::int8 as n`.execute(embedded.db);
    assert.equal(rows[0]?.n, 42);
  } finally {
    await embedded.close();
  }
});
