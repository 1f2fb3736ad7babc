// Runs test files on a few shared worker processes (worker.mjs) instead of one process per file: a file's
// cost was mostly importing the application (about 4 CPU s under tsx), paid again by every file
// (docs/testing.md). The longest files start first, from the durations of the last run on this machine,
// so the workers finish together. A worker that dies or hangs fails its file and is replaced.
import { fork } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
const workerPath = join(here, 'worker.mjs');
const reporterUrl = new URL('./reporter.mjs', import.meta.url).href;
/** Where `npm test` keeps each file's last duration on this machine, to start the longest first. */
export const DURATIONS_FILE = join(tmpdir(), 'gatehouse-test-durations.json');

/** A file hung beyond every per-test timeout (those are 3 minutes): its worker is killed and the file fails. */
const FILE_LIMIT_MS = 20 * 60_000;

function readDurations(durationsFile) {
  try {
    return durationsFile && existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};
  } catch {
    return {};
  }
}

// Without a previous run: browsers and server processes are the slow ones.
const guessMs = (file) => (/\.(browser|pg|long)\./.test(file) ? 30_000 : /e2e|multi-instance|security|startup/.test(file) ? 15_000 : 5_000);

const emptyTotals = () => ({ files: 0, tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0, failures: [] });

/**
 * Runs `files` with `env` on `workers` parallel slots, writing each file's output in one piece as it
 * finishes. Resolves to the totals; a file whose worker died or hung counts as a failure. Without a
 * `durationsFile` the files run in the order given.
 */
export async function runFiles({ label, env = {}, files, workers, durationsFile, write = (text) => process.stdout.write(text) }) {
  const durations = readDurations(durationsFile);
  const key = (file) => `${label}:${relative(root, file)}`;
  const queue = durationsFile ? [...files].sort((a, b) => (durations[key(b)] ?? guessMs(b)) - (durations[key(a)] ?? guessMs(a))) : [...files];
  const totals = emptyTotals();

  const fail = (file, error) => {
    totals.fail += 1;
    totals.failures.push({ file: relative(root, file), name: '(the file)', error });
  };

  function startWorker() {
    // NODE_TEST_CONTEXT is set by `node --test` for its file processes; a worker that inherited it would
    // report to that runner's protocol instead of to its own reporter (when this runs inside a test).
    const { NODE_TEST_CONTEXT: _parentRunner, ...inherited } = process.env;
    const child = fork(workerPath, [], {
      cwd: root,
      env: { ...inherited, ...env },
      execArgv: ['--import', 'tsx', `--test-reporter=${reporterUrl}`],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = new Promise((resolve, reject) => {
      child.once('message', (m) => (m.type === 'ready' ? resolve() : reject(new Error(`unexpected first message ${m.type}`))));
      child.once('exit', (code, signal) => reject(new Error(`worker exited before it was ready (${signal ?? code})`)));
    });
    child.on('message', (m) => {
      if (m.type === 'stray') fail(join(root, m.file), `an error outside any test, during or after this file: ${m.error}`);
    });
    return { child, ready };
  }

  /** Runs one file on `worker`; resolves false if the worker is gone (died, or killed after the limit). */
  function runOn(worker, file) {
    return new Promise((resolve) => {
      const started = Date.now();
      let hung = false;
      const timer = setTimeout(() => {
        hung = true;
        fail(file, `still running after ${FILE_LIMIT_MS / 60_000} minutes: worker killed`);
        worker.child.kill('SIGKILL');
      }, FILE_LIMIT_MS);
      const finish = (alive) => {
        clearTimeout(timer);
        worker.child.off('message', onMessage);
        worker.child.off('exit', onExit);
        resolve(alive);
      };
      const onExit = (code, signal) => {
        if (!hung) fail(file, `its worker process exited (${signal ?? `code ${code}`}) before the file finished`);
        finish(false);
      };
      const onMessage = (m) => {
        if (m.type !== 'result') return;
        write(m.text);
        durations[key(file)] = Date.now() - started;
        totals.files += 1;
        for (const k of ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo']) totals[k] += m[k];
        for (const f of m.failures) totals.failures.push({ file: relative(root, file), ...f });
        if (!m.ok && m.fail + m.cancelled === 0) fail(file, 'the file suite failed');
        finish(true);
      };
      worker.child.on('message', onMessage);
      worker.child.on('exit', onExit);
      worker.child.send({ type: 'run', file });
    });
  }

  async function slot() {
    let worker;
    for (let file = queue.shift(); file; file = queue.shift()) {
      worker ??= startWorker();
      try {
        await worker.ready;
      } catch (error) {
        fail(file, String(error.message));
        worker = undefined;
        continue;
      }
      if (!(await runOn(worker, file))) worker = undefined;
    }
    worker?.child.send({ type: 'exit' });
  }

  await Promise.all(Array.from({ length: workers }, slot));
  if (durationsFile) writeFileSync(durationsFile, JSON.stringify(durations));
  return totals;
}

export function printTotals(label, totals) {
  const failed = totals.fail + totals.cancelled;
  console.log(
    `\nℹ ${label}: files ${totals.files}, tests ${totals.tests}, pass ${totals.pass}, ` +
      `fail ${totals.fail}, cancelled ${totals.cancelled}, skipped ${totals.skipped}, todo ${totals.todo}`,
  );
  if (totals.failures.length) {
    console.log('\n✖ failing tests:');
    for (const f of totals.failures) console.log(`  ${f.file} › ${f.name}: ${f.error.replaceAll('\n', '\n      ')}`);
  }
  return failed;
}
