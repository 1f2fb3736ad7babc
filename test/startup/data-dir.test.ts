// DATA_DIR is private to its owner, like a PostgreSQL data directory: created owner-only with everything
// in it, and refused (one line naming it) when its group or others may use it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '../helpers/server-process.js';
import { prepareDataDir } from '../../src/startup/data-dir.js';
import { StartupError } from '../../src/startup/startup-error.js';

/** Every path under `dir` whose mode grants anything to group or others. */
function shared(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const mine = (lstatSync(path).mode & 0o077) === 0 ? [] : [`${path} ${(lstatSync(path).mode & 0o777).toString(8)}`];
    return entry.isDirectory() ? [...mine, ...shared(path)] : mine;
  });
}

/** Spawns with a permissive umask, so only Gatehouse itself can make its files private. */
function withUmask<T>(mask: number, run: () => T): T {
  const previous = process.umask(mask);
  try {
    return run();
  } finally {
    process.umask(previous);
  }
}

const startMain = (env: Record<string, string>) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', METRICS_PORT: '0', KEY_ENCRYPTION_KEY: '', ...env },
    encoding: 'utf8',
    timeout: 90_000,
    killSignal: 'SIGKILL',
  });

test('the embedded database is private to its owner: a new DATA_DIR is created 0700 and everything in it owner-only, said in one log line', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'gatehouse-private-'));
  const dataDir = join(parent, 'data');
  try {
    const server = await withUmask(0o000, () => startServerProcess({ DATA_DIR: dataDir, KEY_ENCRYPTION_KEY: '' }));
    try {
      assert.equal(lstatSync(dataDir).mode & 0o777, 0o700);
      assert.ok(existsSync(join(dataDir, 'key-encryption-key')) && existsSync(join(dataDir, 'postgres', 'PG_VERSION')));
      assert.deepEqual(shared(dataDir), []);
      assert.match(server.output(), new RegExp(`gatehouse: new database in ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      // A write after start-up (a new user) creates files under the process umask: still private.
      const cli = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'test/helpers/cli-entry.ts', 'users', 'create', '--username', 'u1', '--password', 'long enough pw'],
        {
          env: { ...process.env, DATA_DIR: dataDir, KEY_ENCRYPTION_KEY: '' },
          encoding: 'utf8',
        },
      );
      assert.equal(cli.status, 0, cli.stderr);
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0);
    }
    assert.deepEqual(shared(dataDir), []);
    // An existing DATA_DIR says nothing about a new database.
    const again = await startServerProcess({ DATA_DIR: dataDir, KEY_ENCRYPTION_KEY: '' });
    assert.doesNotMatch(again.output(), /new database/);
    await again.stop('SIGTERM');
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test('start-up refuses a DATA_DIR that its group or others can read or write, in one line naming the directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-open-'));
  try {
    for (const mode of [0o755, 0o750, 0o701, 0o770]) {
      chmodSync(dataDir, mode);
      const result = startMain({ DATA_DIR: dataDir });
      assert.equal(result.status, 1, result.stderr);
      assert.equal(
        result.stderr.trim(),
        `gatehouse: DATA_DIR ${dataDir} is accessible by its group or others (mode 0${mode.toString(8)}); the embedded database must be private to its owner: chmod 700 ${dataDir}`,
      );
      assert.ok(!existsSync(join(dataDir, 'postgres')) && !existsSync(join(dataDir, 'pglite')), 'nothing was created in it');
    }
    // The CLI, opening the embedded database itself, refuses it the same way.
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'test/helpers/cli-entry.ts', 'clients', 'list'], {
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 90_000,
      killSignal: 'SIGKILL',
    });
    assert.equal(cli.status, 1);
    assert.match(cli.stderr, /^gatehouse: DATA_DIR .* is accessible by its group or others/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a DATA_DIR that is a file stops start-up with one line naming it, no stack trace', () => {
  const parent = mkdtempSync(join(tmpdir(), 'gatehouse-file-'));
  try {
    const file = join(parent, 'not-a-dir');
    writeFileSync(file, 'x');
    const result = startMain({ DATA_DIR: file });
    assert.equal(result.status, 1);
    assert.equal(result.stderr.trim(), `gatehouse: DATA_DIR ${file} is not a directory`);
    const below = startMain({ DATA_DIR: join(file, 'data') });
    assert.equal(below.status, 1);
    assert.equal(below.stderr.trim(), `gatehouse: DATA_DIR ${join(file, 'data')} is not a directory (a part of its path is a file)`);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test('prepareDataDir creates a missing directory 0700 whatever the umask, and accepts an existing private one', () => {
  const parent = mkdtempSync(join(tmpdir(), 'gatehouse-prepare-'));
  try {
    const dir = join(parent, 'a', 'b');
    assert.equal(
      withUmask(0o000, () => prepareDataDir(dir)),
      true,
    );
    assert.equal(lstatSync(dir).mode & 0o777, 0o700);
    assert.equal(prepareDataDir(dir), false);
    mkdirSync(join(parent, 'open'), { mode: 0o777 });
    chmodSync(join(parent, 'open'), 0o777);
    assert.throws(() => prepareDataDir(join(parent, 'open')), StartupError);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
