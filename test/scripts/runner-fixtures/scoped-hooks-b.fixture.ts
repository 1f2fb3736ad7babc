// Runs after scoped-hooks-a in the same worker: a's top-level beforeEach must not run before b's tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const state = globalThis as { lastBeforeEach?: string };
test('b: the other file’s beforeEach did not run', () => {
  state.lastBeforeEach = 'b';
  assert.equal(state.lastBeforeEach, 'b');
});
test('b: still not, on the second test', () => assert.equal(state.lastBeforeEach, 'b'));
