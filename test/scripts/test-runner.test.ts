// The runner behind `npm test` (scripts/test-runner/): files share worker processes, so what would make a
// shared process lie — one file's hooks reaching another's tests, a failure that is not counted, a file
// that never loaded, a worker that died — must each show up in the totals. The fixtures are real test
// files under runner-fixtures/ (named *.fixture.ts so the suite itself does not run them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runFiles, type Totals } from '../../scripts/test-runner/pool.mjs';

const fixtures = fileURLToPath(new URL('./runner-fixtures/', import.meta.url));
const fixture = (name: string) => join(fixtures, `${name}.fixture.ts`);

async function run(names: string[]): Promise<{ totals: Totals; output: string }> {
  let output = '';
  const totals = await runFiles({ label: 'fixtures', files: names.map(fixture), workers: 1, write: (text) => (output += text) });
  return { totals, output };
}

const failed = (totals: Totals) => totals.failures.map((f) => `${f.file.replace(/^test\/scripts\/runner-fixtures\//, '')} › ${f.name}`).sort();

test('a top-level hook of one file does not reach the tests of the next file in the same worker', async () => {
  const { totals, output } = await run(['scoped-hooks-a', 'scoped-hooks-b']);
  assert.deepEqual(failed(totals), []);
  assert.equal(totals.files, 2);
  assert.equal(totals.pass, 3);
  assert.match(output, /▶ test\/scripts\/runner-fixtures\/scoped-hooks-a\.fixture\.ts/, 'each file is a suite named after it');
});

test('every outcome is counted: pass, fail, skip, a failing hook, a timeout', async () => {
  const { totals } = await run(['outcomes']);
  assert.equal(totals.tests, 5);
  assert.equal(totals.pass, 1);
  assert.equal(totals.skipped, 1);
  assert.equal(totals.fail + totals.cancelled, 4);
  assert.deepEqual(failed(totals), [
    'outcomes.fixture.ts › a suite whose before hook throws',
    'outcomes.fixture.ts › cannot run',
    'outcomes.fixture.ts › fails',
    'outcomes.fixture.ts › times out',
  ]);
});

test("a failure's whole message reaches the totals, not only its first line (a CI log must say why)", async () => {
  const { totals } = await run(['outcomes']);
  const fails = totals.failures.find((f) => f.name === 'fails');
  assert.ok(fails, 'the failing test is listed');
  assert.match(fails.error, /strictly equal[\s\S]*1 !== 2/);
});

test('a file that throws while it loads is a failure, not a file without tests', async () => {
  const { totals } = await run(['load-error']);
  assert.deepEqual(failed(totals), ['load-error.fixture.ts › the file loads']);
  assert.match(totals.failures[0]!.error, /broken at import/);
});

test('a helper that registers a hook when imported is refused (it would belong to one file only)', async () => {
  const { totals } = await run(['helper-hook']);
  assert.equal(totals.pass, 1, 'the file’s own test still runs');
  assert.equal(totals.fail, 1);
  assert.match(totals.failures[0]!.name, /after\(\) at the top level of .*helper-with-hook\.ts/);
});

test('a worker that dies fails its file, and the next file runs on a new worker', async () => {
  const { totals } = await run(['exits', 'scoped-hooks-b']);
  assert.deepEqual(failed(totals), ['exits.fixture.ts › (the file)']);
  assert.match(totals.failures[0]!.error, /worker process exited/);
  assert.equal(totals.pass, 2, 'the file after it ran');
});

test('an error no test can be blamed for (work left behind by a finished file) is a failure, and the run goes on', async () => {
  const { totals } = await run(['stray-error', 'scoped-hooks-b']);
  const strays = totals.failures.filter((f) => /an error outside any test.*stray after the suite/s.test(f.error));
  assert.equal(strays.length, 1, JSON.stringify(totals.failures));
  assert.equal(totals.failures.length, 1);
  assert.equal(totals.pass, 3, 'its own test and the next file’s two');
});
