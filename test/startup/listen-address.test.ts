// A busy port or a bad HOST is reported before the database is opened, in one line naming the variable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkListenAddress } from '../../src/startup/listen-address.js';
import { StartupError } from '../../src/startup/startup-error.js';

const startMain = (env: Record<string, string>) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, METRICS_PORT: '0', KEY_ENCRYPTION_KEY: '', ...env },
    encoding: 'utf8',
    timeout: 90_000,
    killSignal: 'SIGKILL',
  });

async function occupy(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

test('a busy PORT stops start-up at once with one line naming it, before any database is opened', async () => {
  const busy = await occupy();
  const parent = mkdtempSync(join(tmpdir(), 'gatehouse-port-'));
  const dataDir = join(parent, 'data');
  try {
    const port = (busy.address() as { port: number }).port;
    const started = performance.now();
    const result = startMain({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir });
    const elapsed = performance.now() - started;
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr.trim(),
      `gatehouse: PORT ${port} is already in use on 127.0.0.1 (another server is running there); stop it or set PORT to a free port`,
    );
    assert.ok(!existsSync(dataDir), 'DATA_DIR untouched: the port was checked first');
    console.log(`busy port reported in ${Math.round(elapsed)} ms (process start included)`);
  } finally {
    busy.close();
    rmSync(parent, { recursive: true, force: true });
  }
});

test('a HOST that is not an address of this machine stops start-up with one line naming it', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-host-'));
  try {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to this machine; binding fails locally.
    const result = startMain({ PORT: '0', HOST: '192.0.2.1', DATA_DIR: dataDir, ISSUER: 'http://127.0.0.1:1' });
    assert.equal(result.status, 1);
    assert.equal(result.stderr.trim(), 'gatehouse: HOST "192.0.2.1" is not an address of this machine (cannot listen on 192.0.2.1:0)');
    assert.deepEqual(readdirSync(dataDir), []);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a HOST that does not resolve is one StartupError naming HOST', async () => {
  const notFound = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  };
  await assert.rejects(checkListenAddress('no-such-host.invalid', 0, notFound), (error: unknown) => {
    assert.ok(error instanceof StartupError);
    assert.equal(error.message, 'HOST "no-such-host.invalid" cannot be resolved to an address (ENOTFOUND)');
    return true;
  });
});

test('a free address passes the check and is free again afterwards', async () => {
  const probe = await occupy();
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  await checkListenAddress('127.0.0.1', port);
  const again = createServer();
  await new Promise<void>((resolve, reject) => again.once('error', reject).listen(port, '127.0.0.1', resolve));
  again.close();
});
