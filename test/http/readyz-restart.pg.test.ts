import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster } from '../../scripts/pg-cluster.mjs';
import { openPostgres } from '../../src/storage/driver/database.js';
import { migrate } from '../../src/storage/driver/migrate.js';
import { startTestApp } from '../helpers/app.js';

test('/readyz goes 503 when PostgreSQL is stopped and 200 again when it is back, with no restart of Gatehouse', async () => {
  const cluster = await startCluster({ maxConnections: 50 });
  const database = await openPostgres(cluster.url, 5);
  try {
    await migrate(database.db);
    const t = await startTestApp({ database });
    try {
      assert.equal((await fetch(`${t.url}/readyz`)).status, 200);
      cluster.pause();
      const down = await fetch(`${t.url}/readyz`);
      assert.equal(down.status, 503);
      assert.ok(down.headers.get('retry-after'));
      cluster.resume();
      assert.equal((await fetch(`${t.url}/readyz`)).status, 200);
    } finally {
      await t.close();
    }
  } finally {
    await database.close().catch(() => {});
    cluster.stop();
  }
});
