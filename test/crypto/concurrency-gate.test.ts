import { test } from 'node:test';
import assert from 'node:assert/strict';
import { concurrencyGate } from '../../src/crypto/concurrency-gate.js';

/** A task that runs until the test lets it finish. */
function controllable() {
  const started: number[] = [];
  const finishers = new Map<number, { resolve(): void; reject(error: Error): void }>();
  const task = (id: number) => () =>
    new Promise<number>((resolve, reject) => {
      started.push(id);
      finishers.set(id, { resolve: () => resolve(id), reject });
    });
  return {
    started,
    finish: (id: number) => finishers.get(id)!.resolve(),
    fail: (id: number) => finishers.get(id)!.reject(new Error(`task ${id} failed`)),
    task,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a concurrency gate runs at most `limit` tasks at once; the rest wait in arrival order', async () => {
  const gate = concurrencyGate(2);
  const { started, finish, task } = controllable();
  const results = [1, 2, 3, 4, 5].map((id) => gate.run(task(id)));
  await settle();
  assert.deepEqual(started, [1, 2]);
  assert.equal(gate.running, 2);
  assert.equal(gate.waiting, 3);

  finish(2);
  await settle();
  assert.deepEqual(started, [1, 2, 3], 'the freed slot goes to the first waiter');
  assert.equal(gate.running, 2);

  finish(1);
  finish(3);
  await settle();
  assert.deepEqual(started, [1, 2, 3, 4, 5]);
  finish(4);
  finish(5);
  assert.deepEqual(await Promise.all(results), [1, 2, 3, 4, 5]);
  assert.equal(gate.running, 0);
  assert.equal(gate.waiting, 0);
});

test('a failing task gives its slot back and its caller gets the error', async () => {
  const gate = concurrencyGate(1);
  const { started, finish, fail, task } = controllable();
  const first = gate.run(task(1));
  const second = gate.run(task(2));
  await settle();
  fail(1);
  await assert.rejects(first, /task 1 failed/);
  await settle();
  assert.deepEqual(started, [1, 2]);
  finish(2);
  assert.equal(await second, 2);
  assert.equal(gate.running, 0);
});

test('a concurrency gate refuses a limit that is not a positive integer', () => {
  assert.throws(() => concurrencyGate(0), RangeError);
  assert.throws(() => concurrencyGate(1.5), RangeError);
});
