import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ServerProcess } from './helpers/server-process.js';
import { startTestApp } from './helpers/app.js';

test('a bad setting stops start-up with one clear line naming the variable and no stack trace', () => {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, PORT: 'eighty' }, encoding: 'utf8' });
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
    assert.ok(existsSync(join(dataDir, 'gatehouse.pid')));
    assert.equal(await server.stop('SIGTERM'), 0);
    assert.ok(!existsSync(join(dataDir, 'gatehouse.pid')), 'pid lock released on exit');
    // A second start on the existing data dir reuses everything.
    const again = await startServerProcess({ DATA_DIR: dataDir, KEY_ENCRYPTION_KEY: '' });
    servers.push(again);
    assert.equal(await readiness(again), '200 {"status":"ready"}');
    // The embedded database serves one process: a second server on the same DATA_DIR is refused clearly.
    const second = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', KEY_ENCRYPTION_KEY: '' },
      encoding: 'utf8',
    });
    assert.equal(second.status, 1);
    assert.match(second.stderr, /DATA_DIR .* is in use by process \d+/);
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
