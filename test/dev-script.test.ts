// `npm run dev` restarts the server when a file changes (tsx watch): the old process shuts down gracefully,
// releasing the embedded database, and the new one opens it and is ready again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../scripts/pg-cluster.mjs';
import { spawnTracked } from './helpers/children.js';

test('npm run dev watches: a changed file restarts the server on the same embedded database', async () => {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
  const [tsx, watch, ...rest] = scripts.dev!.split(' ');
  assert.equal(`${tsx} ${watch}`, 'tsx watch', 'the dev script runs tsx in watch mode');
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-dev-'));
  // The sources are not touched: tsx watch is told to watch one more file, which this test changes.
  const trigger = join(dir, 'trigger.txt');
  writeFileSync(trigger, '1');
  const port = await freePort();
  const child = spawnTracked(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'watch', '--include', trigger, '--clear-screen=false', ...rest], {
    env: {
      ...process.env,
      DATA_DIR: join(dir, 'data'),
      KEY_ENCRYPTION_KEY: '',
      PORT: String(port),
      HOST: '127.0.0.1',
      ISSUER: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let waiters: (() => void)[] = [];
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const readyCount = () => out.split('"gatehouse ready"').length - 1;
  const until = (condition: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (condition()) resolve();
      };
      waiters.push(check);
      child.once('exit', () => reject(new Error(`dev server exited:\n${out}`)));
      check();
    });
  try {
    await until(() => readyCount() === 1);
    assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
    writeFileSync(trigger, '2');
    await until(() => readyCount() === 2);
    assert.doesNotMatch(out, /is in use by process/, 'the old process released DATA_DIR before the new one opened it');
    assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
  } finally {
    waiters = [];
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    rmSync(dir, { recursive: true, force: true });
  }
});
