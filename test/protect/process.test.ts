// `gatehouse protect` as the process an operator runs: the CLI hands it over without opening any database,
// it logs one structured line saying where it listens, forwards, and stops cleanly on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { startTestApp } from '../helpers/app.js';
import { protectArgs, protectCommand, spawnProtect } from '../helpers/protect.js';
import { registerResourceServer } from '../helpers/resource-servers.js';
import { freePort } from '../../scripts/pg-cluster.mjs';

test('protect without --resource or without credentials is a usage error (exit 2), and opens no database', () => {
  const noResource = spawnSync(process.execPath, [...protectCommand, '--upstream', 'http://127.0.0.1:1'], {
    encoding: 'utf8',
    env: { ...process.env, DATA_DIR: '/nonexistent/never-created' },
  });
  assert.equal(noResource.status, 2, noResource.stderr);
  assert.match(noResource.stderr, /--resource is required/);
  const noCredentials = spawnSync(
    process.execPath,
    [...protectCommand, '--resource', 'https://r.example/', '--upstream', 'http://127.0.0.1:1', '--issuer', 'https://as.example'],
    { encoding: 'utf8', env: { ...process.env, GATEHOUSE_CLIENT_ID: '', GATEHOUSE_CLIENT_SECRET: '' } },
  );
  assert.equal(noCredentials.status, 2);
  assert.match(noCredentials.stderr, /GATEHOUSE_CLIENT_ID and GATEHOUSE_CLIENT_SECRET are required/);
});

test('gatehouse protect logs where it listens as JSON, forwards, and exits 0 on SIGTERM (graceful shutdown)', async () => {
  const gatehouse = await startTestApp();
  const upstream = createServer((_req, res) => res.end('upstream'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  try {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/`;
    const creds = await registerResourceServer(gatehouse.core, resource, { name: 'P', scope: 'p:read=Read' });
    const child = spawnProtect(
      protectArgs({ resource, upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, issuer: gatehouse.url, port }),
      creds,
      ['ignore', 'pipe', 'pipe'],
    );
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    while (!out.includes('"protect listening"')) {
      if (child.exitCode !== null) assert.fail(`protect exited ${child.exitCode}`);
      await once(child.stdout!, 'data');
    }
    const line = JSON.parse(out.split('\n').find((l) => l.includes('"protect listening"'))!) as { listen: string; ops: string; name: string; level: number };
    assert.equal(line.name, 'gatehouse-protect');
    assert.equal(line.listen, `http://127.0.0.1:${port}`);
    assert.equal((await fetch(`${line.listen}/`)).status, 401);
    assert.equal((await fetch(`${line.ops}/healthz`)).status, 200);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number];
    assert.equal(code, 0);
    assert.match(out, /"shutting down"/);
  } finally {
    upstream.close();
    await gatehouse.close();
  }
});
