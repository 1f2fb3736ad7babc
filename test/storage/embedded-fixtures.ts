// Fixtures for the embedded-server tests: a fresh DATA_DIR (its server stopped after the test), the CLI as a
// child process, and the test's own connection to the embedded server (which adopts the running one).
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterDir, runningPid, startEmbeddedPostgres, type EmbeddedServer } from '../../src/storage/driver/embedded-postgres.js';
import { openPostgres, type Database } from '../../src/storage/driver/database.js';

export function newDataDir(t: TestContext): { dataDir: string; env: Record<string, string> } {
  const parent = mkdtempSync(join(tmpdir(), 'gh-emb-'));
  const dataDir = join(parent, 'data');
  t.after(() => {
    // A server left behind by a failed assertion is stopped (it runs detached from the test process).
    const pid = runningPid(clusterDir(dataDir));
    if (pid !== undefined) process.kill(pid, 'SIGQUIT');
    rmSync(parent, { recursive: true, force: true });
  });
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    RATE_LIMIT_ENABLED: 'false',
    OVERLOAD_MAX_EVENT_LOOP_DELAY: '0',
  };
  return { dataDir, env };
}

export async function cli(env: Record<string, string>, ...argv: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/cli-entry.ts', ...argv], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [status] = (await once(child, 'exit')) as [number | null];
  return { status, stdout, stderr };
}

export async function waitUntilGone(pid: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`process ${pid} did not exit`);
}

export async function openEmbedded(dataDir: string): Promise<{ server: EmbeddedServer; database: Database }> {
  const server = await startEmbeddedPostgres(dataDir, () => {});
  return { server, database: await openPostgres(server.url, 3) };
}
