import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ServerProcess } from './helpers/server-process.js';
import { startTestApp } from './helpers/app.js';

test('a bad setting stops start-up with one clear line naming the variable and no stack trace', () => {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: 'eighty', METRICS_PORT: '0' },
    encoding: 'utf8',
  });
  assert.equal(result.status, 1);
  assert.equal(result.stderr.trim(), 'gatehouse: Invalid configuration: PORT must be an integer between 0 and 65535 (got "eighty")');
});

test('the server starts on an empty embedded data dir, generates its development key-encryption key, and stops cleanly on SIGTERM', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-main-'));
  const servers: ServerProcess[] = [];
  const readiness = async (server: ServerProcess) => {
    const res = await fetch(`${server.url}/readyz`);
    return `${res.status} ${await res.text()}`;
  };
  try {
    const server = await startServerProcess({ DATA_DIR: dataDir, KEY_ENCRYPTION_KEY: '' });
    servers.push(server);
    assert.equal(await readiness(server), '200 {"status":"ready"}');
    assert.ok(existsSync(join(dataDir, 'key-encryption-key')));
    // The embedded PostgreSQL server lives in DATA_DIR/postgres while Gatehouse runs, and stops with its last user.
    const postmaster = join(dataDir, 'postgres', 'postmaster.pid');
    assert.ok(existsSync(postmaster), 'the embedded server runs in DATA_DIR/postgres');
    assert.equal(await server.stop('SIGTERM'), 0);
    assert.ok(!existsSync(postmaster), 'the embedded server stopped with the last Gatehouse process');
    // A second start on the existing data dir reuses everything (sharing by several processes:
    // test/storage/embedded-lifecycle.embedded.test.ts).
    const again = await startServerProcess({ DATA_DIR: dataDir, KEY_ENCRYPTION_KEY: '' });
    servers.push(again);
    assert.equal(await readiness(again), '200 {"status":"ready"}');
    assert.equal(await again.stop('SIGINT'), 0);
  } finally {
    for (const server of servers) await server.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('graceful shutdown lets an in-flight request finish and refuses new ones', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  const t = await startTestApp({
    configure(app) {
      app.get('/test/slow', async () => {
        entered();
        await gate;
        return { finished: true };
      });
    },
  });
  const inflight = fetch(`${t.url}/test/slow`);
  await inside;
  const closing = t.close();
  release();
  const res = await inflight;
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { finished: true });
  await closing;
  await assert.rejects(fetch(`${t.url}/healthz`));
});
