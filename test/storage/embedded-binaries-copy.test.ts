// Under root with a checkout in a private directory, the embedded server runs from a copy of its binaries in
// the temporary directory. Every start of the same build shares one copy (it used to leave ~60 MB per start),
// concurrent starts agree on it, and a directory of that name that someone else could have planted is never used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { COPY_PREFIX, embeddedBinaries, sharedCopy } from '../../src/storage/driver/embedded-postgres-binaries.js';

const copies = (root: string) => readdirSync(root).filter((name) => name.startsWith(COPY_PREFIX));

function scratchRoot(t: { after: (fn: () => void) => void }): string {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-copy-test-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

const copyInChild = (native: string, major: number, root: string) =>
  new Promise<string>((resolve, reject) => {
    const module = new URL('../../src/storage/driver/embedded-postgres-binaries.ts', import.meta.url).href;
    const code = `const { sharedCopy } = await import(${JSON.stringify(module)}); process.stdout.write(sharedCopy(${JSON.stringify(native)}, { major: ${major} }, ${JSON.stringify(root)}));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.on('exit', (status) => (status === 0 ? resolve(out) : reject(new Error(`child exited ${status}`))));
  });

test('binaries copied for the server account are one copy per build, shared by every start (no copy left per start)', async (t) => {
  const root = scratchRoot(t);
  const binaries = await embeddedBinaries();
  const native = dirname(dirname(binaries.postgres));
  const first = sharedCopy(native, binaries, root);
  const second = sharedCopy(native, binaries, root);
  assert.equal(second, first);
  assert.deepEqual(copies(root), [first.slice(root.length + 1)], 'one directory after two starts, and no scratch left behind');
  for (const path of [first, join(first, 'bin'), join(first, 'bin', 'postgres'), join(first, 'lib')]) {
    assert.equal(statSync(path).mode & 0o005, 0o005, `${path} is readable and runnable by the server's account`);
  }
});

test('concurrent starts agree on one complete copy of the binaries', { timeout: 120_000 }, async (t) => {
  const root = scratchRoot(t);
  const binaries = await embeddedBinaries();
  const native = dirname(dirname(binaries.postgres));
  const paths = await Promise.all([1, 2, 3].map(() => copyInChild(native, binaries.major, root)));
  assert.equal(new Set(paths).size, 1, `every start got the same copy: ${paths.join(', ')}`);
  assert.equal(copies(root).length, 1, `one directory, no scratch copies: ${copies(root).join(', ')}`);
  assert.ok(readdirSync(join(paths[0] as string, 'bin')).includes('postgres'));
});

test('a copy directory that others may write into is never used (no planted binaries)', async (t) => {
  const root = scratchRoot(t);
  const binaries = await embeddedBinaries();
  const native = dirname(dirname(binaries.postgres));
  const expected = sharedCopy(native, binaries, root);
  rmSync(expected, { recursive: true });
  // The attacker's directory under the expected name: writable by everyone, and (when we can) someone else's.
  mkdirSync(join(expected, 'bin'), { recursive: true });
  chmodSync(expected, 0o777);
  if (process.getuid?.() === 0) chownSync(expected, 65534, 65534);
  const used = sharedCopy(native, binaries, root);
  assert.notEqual(used, expected);
  assert.ok(readdirSync(join(used, 'bin')).includes('postgres'), 'this start runs its own complete copy');
});
