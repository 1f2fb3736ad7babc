// Module resolution hook of a shared test process: test files (and the test helpers they import) that ask
// for `node:test` get the recording stand-in (node-test-shim.mjs); everything else, node:test included for
// the stand-in itself and for the reporter, resolves as usual.
let testDir;
let shim;

export function initialize(data) {
  testDir = data.testDir;
  shim = data.shim;
}

export function resolve(specifier, context, next) {
  if (specifier === 'node:test' && context.parentURL?.startsWith(testDir)) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}
