// Builds dist/ with tsc when any source file is newer than the last build, so that
// `npm start` and `npx gatehouse` work straight after `npm install`. The resource-server kit
// (packages/resource-server-kit, the workspace package @gatehouse/resource-server) is built first: src imports it.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.tsbuildinfo');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export async function ensureBuilt({ quiet = false } = {}) {
  const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  const kit = join(root, 'packages', 'resource-server-kit');
  const sources = Math.max(
    newestMtime(join(root, 'src')),
    newestMtime(join(kit, 'src')),
    statSync(join(root, 'tsconfig.json')).mtimeMs,
    statSync(join(root, 'tsconfig.build.json')).mtimeMs,
  );
  if (built >= sources && existsSync(join(kit, 'dist', 'index.js'))) return;
  if (!quiet) console.error('gatehouse: compiling TypeScript (first start or sources changed)…');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const project of [join(kit, 'tsconfig.json'), join(root, 'tsconfig.build.json')]) {
    const result = spawnSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
    if (result.status !== 0) {
      console.error('gatehouse: the TypeScript build failed');
      process.exit(1);
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await ensureBuilt();
