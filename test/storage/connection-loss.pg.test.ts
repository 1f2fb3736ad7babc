// A PostgreSQL connection that dies while checked out (a restart mid-transaction) fails its queries; it must
// never crash the process through an unhandled 'error' event on the pg client.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { postgresPool } from '../../src/storage/driver/database.js';
import { createPostgresDatabaseUrl } from '../helpers/database.js';

let created: Awaited<ReturnType<typeof createPostgresDatabaseUrl>>;
before(async () => {
  created = await createPostgresDatabaseUrl();
});
after(() => created.drop());

test('a backend terminated while its connection is checked out does not crash the process; the pool replaces the connection', async () => {
  const pool = postgresPool(created.url, 1);
  try {
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    // Not events.once: it would reject on the very 'error' event this test is about.
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    const admin = new pg.Client({ connectionString: created.url });
    await admin.connect();
    await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    await admin.end();
    // pg emits 'error' on the client just before 'end'; unheard, that 'error' would have ended this process.
    await ended;
    await assert.rejects(client.query('select 1'));
    client.release();
    const again = await pool.query<{ one: number }>('select 1 as one');
    assert.equal(again.rows[0]!.one, 1);
  } finally {
    await pool.end();
  }
});
