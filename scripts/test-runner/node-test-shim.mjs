// What a test file gets for `node:test` inside a shared test process (scripts/test-runner/hooks.mjs
// redirects the import). While the worker imports a file, its top-level registrations (tests, suites,
// hooks) are recorded; the worker then replays them inside one suite named after the file. So a file's
// top-level `before`/`after` stay the file's own, exactly as when the file had a process to itself, and
// the file's modules are imported once per worker instead of once per file.
//
// Outside a recording (a replayed suite body, a test body) every call goes straight to node:test. Each
// test, suite and hook gets the per-test timeout that `node --test --test-timeout` would give it, since
// that flag means nothing to a process not started with --test.
import * as nodeTest from 'node:test';

const real = {
  test: nodeTest.test,
  it: nodeTest.it,
  describe: nodeTest.describe,
  suite: nodeTest.suite,
  before: nodeTest.before,
  after: nodeTest.after,
  beforeEach: nodeTest.beforeEach,
  afterEach: nodeTest.afterEach,
};

const timeout = Number(process.env.GATEHOUSE_TEST_TIMEOUT_MS ?? 180_000);

/** @type {{ kind: string, args: unknown[] }[] | undefined} */
let recording;
let recordedFile;

/** `file`: the path of the test file about to be imported. */
export function startRecording(file) {
  if (recording) throw new Error('a recording is already open: files are imported one at a time');
  recording = [];
  recordedFile = file;
}

export function stopRecording() {
  const recorded = recording ?? [];
  recording = undefined;
  return recorded;
}

/** Registers recorded calls with node:test, in the order the file made them (inside the file's suite). */
export function replay(recorded) {
  for (const { kind, args } of recorded) call(kind, args);
}

const isHook = (kind) => kind === 'before' || kind === 'after' || kind === 'beforeEach' || kind === 'afterEach';

// node:test's signatures: test([name][, options][, fn]) and before([fn][, options]).
function call(kind, args) {
  if (isHook(kind)) {
    const [fn, options] = args;
    return real[kind](fn, { timeout, ...options });
  }
  const name = args.find((a) => typeof a === 'string');
  const options = args.find((a) => a !== null && typeof a === 'object');
  const fn = args.find((a) => typeof a === 'function');
  const merged = { timeout, ...options };
  return name === undefined ? real[kind](merged, fn) : real[kind](name, merged, fn);
}

// Whether the recorded file's own code is on the stack (directly, or through a suite function of a helper
// it calls); if not, the call comes from a helper module's top level. Stack frames are source-mapped paths.
function fromRecordedFile() {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return stack.includes(`${recordedFile}:`);
}

// The first frame outside this module, for the message.
function caller() {
  const frame = new Error().stack
    ?.split('\n')
    .slice(1)
    .find((line) => !line.includes(import.meta.url));
  return frame?.trim().replace(/^at /, '') ?? 'a module';
}

function register(kind) {
  return (...args) => {
    if (!recording) return call(kind, args);
    // A helper module imported by many files is evaluated once per worker: a registration it makes at
    // import time would belong to whichever file imported it first. Such a helper must take the test
    // context instead (t.after); this turns the mistake into a failing test rather than a silent skip.
    if (!fromRecordedFile()) {
      const from = caller();
      const refuse = () => {
        throw new Error(
          `${from} registers ${kind}() when imported; a shared helper must not (use the test context, t.${kind}, or export a function the test file calls)`,
        );
      };
      recording.push({ kind: 'test', args: [`${kind}() at the top level of ${from}`, refuse] });
      return Promise.resolve();
    }
    recording.push({ kind, args });
    return Promise.resolve();
  };
}

// No .skip/.todo/.only: the suite has none, and a file that reaches for one fails to load (a loud failure)
// instead of quietly running fewer tests.
export const test = register('test');
export const it = register('it');
export const describe = register('describe');
export const suite = register('suite');
export const before = register('before');
export const after = register('after');
export const beforeEach = register('beforeEach');
export const afterEach = register('afterEach');
export const { mock } = nodeTest;

export default Object.assign(test, { test, it, describe, suite, before, after, beforeEach, afterEach, mock });
