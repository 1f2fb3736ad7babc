import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { sql } from 'kysely';
import { openPostgres } from '../../src/storage/driver/database.js';
import { createPostgresDatabaseUrl } from '../helpers/database.js';
import { startTestApp } from '../helpers/app.js';

test('when requests pile up waiting for a database connection, new ones are shed at once with 503 + Retry-After instead of hanging', async () => {
  const { url, drop } = await createPostgresDatabaseUrl();
  const database = await openPostgres(url, 1);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let holding!: () => void;
  const held = new Promise<void>((r) => (holding = r));
  const t = await startTestApp({
    database,
    env: { OVERLOAD_MAX_DB_WAITING: '2' },
    configure(app) {
      app.get('/test/hold', async () => {
        await database.db.transaction().execute(async (tx) => {
          await sql`select 1`.execute(tx);
          holding();
          await gate;
        });
        return { held: true };
      });
    },
  });
  try {
    const holder = fetch(`${t.url}/test/hold`);
    await held;
    const queued = [fetch(`${t.url}/readyz`), fetch(`${t.url}/readyz`)];
    for (let i = 0; i < 10_000 && database.waiting() < 2; i++) await tick();
    assert.equal(database.waiting(), 2, 'two readiness checks wait for the only connection');
    const shed = await fetch(`${t.url}/readyz`);
    assert.equal(shed.status, 503);
    assert.equal(shed.headers.get('retry-after'), '5');
    const body = (await shed.json()) as { code: string; detail: string };
    assert.equal(body.code, 'service-unavailable');
    // Shed on admission (not after waiting out the pool's connection timeout): the connection is still held.
    assert.equal(body.detail, 'Too many requests are waiting for the database.');
    assert.equal(database.waiting(), 2);
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200, 'liveness is never shed');
    release();
    assert.equal((await holder).status, 200);
    for (const r of await Promise.all(queued)) assert.equal(r.status, 200);
  } finally {
    await t.close();
    await database.close();
    await drop();
  }
});
