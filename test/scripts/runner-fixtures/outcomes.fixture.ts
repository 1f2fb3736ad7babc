// One of each outcome the runner must count.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

test('passes', () => assert.ok(true));
test('fails', () => assert.equal(1, 2));
test('is skipped', { skip: true }, () => {});
describe('a suite whose before hook throws', () => {
  before(() => {
    throw new Error('hook broke');
  });
  test('cannot run', () => {});
});
test('times out', { timeout: 50 }, () => new Promise((resolve) => setTimeout(resolve, 2_000)));
