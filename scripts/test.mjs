// `npm test`: the whole suite on the embedded default database (one embedded PostgreSQL server for the run,
// started by Gatehouse's own start-up code; *.embedded.test.ts exercise that start-up itself), then again on a
// throwaway Debian PostgreSQL server when its binaries are installed. Browser tests run when /usr/bin/chromium exists.
// Flags: --long (only *.long.test.ts), --only-embedded (alias --only-pglite), --only-postgres, --pglite (also
// a pass on in-memory PGlite, the DATABASE_URL=pglite: option), and file filters (substrings).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { tsImport } from 'tsx/esm/api';
import { findPostgresBin, startCluster } from './pg-cluster.mjs';
import { DURATIONS_FILE, printTotals, runFiles } from './test-runner/pool.mjs';

const root = join(fileURLToPath(import.meta.url), '..', '..');
// Tests that run src/ through tsx from another directory (a server started in a temporary checkout, say) still
// resolve the workspace package @gatehouse/resource-server to its sources (tsconfig paths), not to a dist/ that
// only the build makes.
process.env.TSX_TSCONFIG_PATH ??= join(root, 'tsconfig.json');
const args = process.argv.slice(2);
const long = args.includes('--long');
const filters = args.filter((a) => !a.startsWith('--'));
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function listTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listTests(path);
    return /\.test\.ts$/.test(name) ? [path] : [];
  });
}

let files = listTests(join(root, 'test')).sort();
// --long runs only the long files (deeper fuzzing): `npm test` has already run everything else.
files = files.filter((f) => f.endsWith('.long.test.ts') === long);
if (!existsSync(chromium)) {
  const browser = files.filter((f) => f.includes('.browser.'));
  if (browser.length) console.log(`npm test: ${chromium} not found, so the ${browser.length} browser test file(s) do not run (apt-get install chromium)`);
  files = files.filter((f) => !f.includes('.browser.'));
}
if (spawnSync('redis-server', ['--version']).status !== 0) {
  const redis = files.filter((f) => f.includes('.redis.'));
  if (redis.length) console.log(`npm test: redis-server not found, so the ${redis.length} Redis test file(s) do not run (apt-get install redis-server)`);
  files = files.filter((f) => !f.includes('.redis.'));
}
if (filters.length) files = files.filter((f) => filters.some((x) => relative(root, f).includes(x)));

// *.pg.test.ts need a PostgreSQL server of their own (several processes, stopping the server): server pass only.
// *.embedded.test.ts start embedded servers of their own in DATA_DIRs: embedded pass only.
// Files run on shared worker processes (scripts/test-runner/); --process-per-file runs each file in a process
// of its own through `node --test` instead, as before, to compare or to rule the runner out.
const workers = Number(process.env.GATEHOUSE_TEST_WORKERS ?? 2);
const totals = { passed: 0, failed: 0, skipped: 0 };

async function run(label, env, selected) {
  console.log(`\n=== ${label}: ${selected.length} test files ===`);
  const started = Date.now();
  let ok;
  if (args.includes('--process-per-file')) {
    const result = spawnSync(
      process.execPath,
      // A test that hangs fails after 3 minutes instead of holding CI to its limit; --test-force-exit ends a
      // file whose tests are done even if a failed test left a handle open.
      ['--import', 'tsx', '--test', `--test-concurrency=${workers}`, '--test-timeout=180000', '--test-force-exit', '--test-reporter=spec', ...selected],
      { stdio: 'inherit', cwd: root, env: { ...process.env, ...env } },
    );
    ok = result.status === 0;
  } else {
    const result = await runFiles({ label, env, files: selected, workers, durationsFile: DURATIONS_FILE });
    const failed = printTotals(label, result);
    totals.passed += result.pass;
    totals.failed += failed;
    totals.skipped += result.skipped + result.todo;
    // The plain closing line: "<pass>: N passed, N failed, N skipped".
    console.log(`${label.split(' ')[0]}: ${result.pass} passed, ${failed} failed, ${result.skipped + result.todo} skipped`);
    ok = failed === 0 && result.tests > 0;
  }
  console.log(`=== ${label}: ${ok ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`);
  return ok;
}

/** One embedded server for the embedded pass's databases; throwaway, so durability is traded for speed here only. */
async function withEmbeddedServer(use) {
  const { startEmbeddedPostgres } = await tsImport('../src/storage/driver/embedded-postgres.ts', import.meta.url);
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-test-embedded-'));
  const settings = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' };
  const server = await startEmbeddedPostgres(dataDir, () => {}, { settings });
  try {
    return await use(server.url);
  } finally {
    await server.release();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const onlyEmbedded = args.includes('--only-embedded') || args.includes('--only-pglite');
let ok = true;
if (!args.includes('--only-postgres')) {
  const selected = files.filter((f) => !f.endsWith('.pg.test.ts'));
  ok = (await withEmbeddedServer((url) => run('embedded PostgreSQL', { GATEHOUSE_TEST_DB: 'embedded', GATEHOUSE_TEST_PG_URL: url }, selected))) && ok;
}
if (args.includes('--pglite'))
  ok =
    (await run(
      'PGlite (DATABASE_URL=pglite:)',
      { GATEHOUSE_TEST_DB: 'pglite' },
      files.filter((f) => !f.endsWith('.pg.test.ts') && !f.endsWith('.embedded.test.ts')),
    )) && ok;
if (!onlyEmbedded) {
  if (!findPostgresBin()) {
    console.log('npm test: PostgreSQL binaries not found (/usr/lib/postgresql/*/bin), so the PostgreSQL-server run is skipped (apt-get install postgresql)');
  } else {
    const cluster = await startCluster();
    try {
      ok =
        (await run(
          'PostgreSQL server',
          { GATEHOUSE_TEST_DB: 'postgres', GATEHOUSE_TEST_PG_URL: cluster.url },
          files.filter((f) => !f.endsWith('.embedded.test.ts')),
        )) && ok;
    } finally {
      cluster.stop();
    }
  }
}
if (!args.includes('--process-per-file')) console.log(`total: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(ok ? 0 : 1);
