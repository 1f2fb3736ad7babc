// Registers a top-level beforeEach: it must reach this file's tests only.
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';

const state = globalThis as { lastBeforeEach?: string };
beforeEach(() => {
  state.lastBeforeEach = 'a';
});
test('a: its own beforeEach ran', () => assert.equal(state.lastBeforeEach, 'a'));
