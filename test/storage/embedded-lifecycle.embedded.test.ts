// The embedded default database: a PostgreSQL server that Gatehouse starts in DATA_DIR/postgres (private, never
// as root), shares between its processes and the CLI, and stops when the last one leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { clusterDir, runningPid } from '../../src/storage/driver/embedded-postgres.js';
import { cli, newDataDir, waitUntilGone } from './embedded-fixtures.js';

test('first start creates a private PostgreSQL cluster in DATA_DIR; the CLI and a second process share the running server; SIGTERM stops it (last one out) and a restart keeps the data', {
  timeout: 180_000,
}, async (t) => {
  const { dataDir, env } = newDataDir(t);
  const first = await startServerProcess(env);
  const cluster = clusterDir(dataDir);
  let second: ServerProcess | undefined;
  try {
    assert.match(first.output(), /new embedded PostgreSQL \d+ database in/);
    const pid = runningPid(cluster);
    assert.ok(pid !== undefined, 'the server is running');
    assert.equal(lstatSync(dataDir).mode & 0o777, 0o700, 'DATA_DIR stays private');
    assert.equal(lstatSync(dataDir).uid, process.getuid!(), 'DATA_DIR stays its owner’s');
    assert.equal(lstatSync(cluster).mode & 0o777, 0o700);
    // Root handling: PostgreSQL refuses root, so under root the server runs as an unprivileged account.
    const serverUid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
    if (process.getuid!() === 0) assert.notEqual(serverUid, 0, 'the embedded server never runs as root');
    else assert.equal(serverUid, process.getuid!(), 'the embedded server runs as the user who runs Gatehouse');
    assert.ok(existsSync(join(cluster, '.s.PGSQL.5432')), 'reachable through a Unix socket inside the private directory');
    assert.ok(!existsSync(join(dataDir, 'admin.sock')), 'no admin socket: the CLI opens the shared server itself');

    // The CLI while the server runs: it adopts the server, and leaves it running when it is done.
    const created = await cli(env, 'users', 'create', '--username', 'alice', '--password', 'long enough password');
    assert.equal(created.status, 0, created.stderr);
    assert.equal(runningPid(cluster), pid, 'the CLI left the server running');

    // A second Gatehouse process on the same DATA_DIR finds the running server instead of starting another.
    second = await startServerProcess(env);
    assert.doesNotMatch(second.output(), /embedded PostgreSQL \d+ started/);
    assert.equal(runningPid(cluster), pid);
    assert.equal(await second.stop('SIGTERM'), 0);
    assert.equal(runningPid(cluster), pid, 'the first process still uses the server');

    assert.equal(await first.stop('SIGTERM'), 0);
    await waitUntilGone(pid!);
    assert.equal(runningPid(cluster), undefined, 'the last process out stopped the server');
    assert.match(readFileSync(join(dataDir, 'postgres.log'), 'utf8'), /database system is shut down/);

    const listed = await cli(env, 'users', 'list');
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /"alice"/);
    assert.equal(runningPid(cluster), undefined, 'the CLI alone stops the server it started');
  } finally {
    await second?.stop('SIGKILL');
    await first.stop('SIGKILL');
  }
});
