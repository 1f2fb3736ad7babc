import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

test('/healthz answers 200 while the process is up and /readyz 200 while the database answers', async () => {
  const t = await startTestApp();
  try {
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${t.url}/readyz`)).status, 200);
  } finally {
    await t.close();
  }
});

test('/readyz answers 503 problem with Retry-After when the database is gone', async () => {
  const database = await createTestDatabase();
  const t = await startTestApp({ database });
  try {
    await database.close();
    const res = await fetch(`${t.url}/readyz`);
    assert.equal(res.status, 503);
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    const body = (await res.json()) as { code: string };
    assert.equal(body.code, 'service-unavailable');
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
  } finally {
    await t.app.close();
  }
});
