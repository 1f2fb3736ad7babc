// A shared test process: runs the test files its parent (scripts/test.mjs) hands it, one at a time, each
// inside a suite named after the file (see node-test-shim.mjs). The application's modules are imported
// once per worker instead of once per file, which was most of a file's cost. The reporter
// (reporter.mjs) sends each file's result; the parent answers with the next file or with `exit`.
import { register } from 'node:module';
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';

const root = new URL('../../', import.meta.url);
const shimUrl = new URL('./node-test-shim.mjs', import.meta.url).href;
register('./hooks.mjs', import.meta.url, { data: { testDir: new URL('test/', root).href, shim: shimUrl } });
const shim = await import(shimUrl);

let current = '(between files)';

// node:test attributes an uncaught error to the test that caused it; one it cannot attribute (a file's
// stray async work after its suite ended) only sets process.exitCode, in its own listener, and would be
// reported when the worker's root test ends, which in a shared process it never does. Such an error is
// sent at once, after node:test's listener has had its say.
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    const file = current;
    setImmediate(() => {
      if (process.exitCode !== 1) return;
      process.exitCode = undefined;
      process.send?.({ type: 'stray', file, error: String(error?.stack ?? error) });
    });
  });
}

async function runFile(file) {
  current = relative(new URL(root).pathname, file);
  shim.startRecording(file);
  let loadError;
  try {
    await import(pathToFileURL(file).href);
  } catch (error) {
    loadError = error;
  }
  const recorded = shim.stopRecording();
  await describe(current, () => {
    if (loadError) {
      test('the file loads', () => {
        throw loadError;
      });
    } else {
      shim.replay(recorded);
    }
  });
}

process.on('message', (message) => {
  if (message.type === 'run') void runFile(message.file);
  // Whatever a file left open (a failed test's server, a timer) must not keep the worker alive.
  else if (message.type === 'exit') process.exit(0);
});
process.send({ type: 'ready' });
