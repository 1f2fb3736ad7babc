// The real `gatehouse` command line: JSON on stdout, errors on stderr, exit codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

test('the gatehouse binary creates and lists clients, printing JSON (secret shown once), and refuses bad input with exit 2', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
  const env = { ...process.env, DATA_DIR: dataDir, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'), NODE_ENV: 'test', LOG_LEVEL: 'silent' };
  const cli = (...argv: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'test/helpers/cli-entry.ts', ...argv], { env, encoding: 'utf8' }, (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
  try {
    const created = await cli('clients', 'create', '--name', 'Shop', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'orders:read');
    assert.equal(created.status, 0, created.stderr);
    const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string };
    assert.ok(Buffer.from(client.client_secret, 'base64url').length >= 32, 'secret has at least 256 bits');
    const listed = await cli('clients', 'list');
    assert.equal(listed.status, 0, listed.stderr);
    const { clients } = JSON.parse(listed.stdout) as { clients: Record<string, unknown>[] };
    assert.deepEqual(
      clients.map((c) => c.client_id),
      [client.client_id],
    );
    assert.ok(!listed.stdout.includes(client.client_secret), 'list never shows the secret');
    const bad = await cli('clients', 'create', '--name', 'X', '--type', 'public', '--grant-types', 'client_credentials', '--scope', 'orders:read');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /public clients cannot use client_credentials/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
