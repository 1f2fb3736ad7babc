// src/storage/after-commit.ts: work registered with afterCommit runs only once its transaction has
// committed, and the transaction's caller gets its answer only after that work — async work included — is
// done, so whoever asked for a change sees its effects when the call returns (a key rotation's re-read of
// the keys, docs/key-rotation.md).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { afterCommit, runTransaction } from '../../src/storage/after-commit.js';
import type { Database } from '../../src/storage/database.js';
import { createTestDatabase } from '../helpers/database.js';

let database: Database;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.close());

test('runTransaction answers only after an async afterCommit callback has finished', async () => {
  const order: string[] = [];
  let finish!: () => void;
  let started!: () => void;
  const callbackStarted = new Promise<void>((resolve) => (started = resolve));
  const transaction = runTransaction(database.db, async (tx) => {
    afterCommit(tx, () => {
      order.push('callback started');
      started();
      return new Promise<void>((resolve) => (finish = resolve)).then(() => {
        order.push('callback finished');
      });
    });
    return 'result';
  }).then((result) => {
    order.push(`answered ${result}`);
  });
  await callbackStarted;
  // Every pending promise job runs before the next turn of the event loop: an answer that did not wait for
  // the callback would be in `order` by then.
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, ['callback started']);
  finish();
  await transaction;
  assert.deepEqual(order, ['callback started', 'callback finished', 'answered result']);
});

test('a rolled-back transaction runs none of its afterCommit callbacks', async () => {
  let ran = false;
  await assert.rejects(
    runTransaction(database.db, async (tx) => {
      afterCommit(tx, () => {
        ran = true;
      });
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.equal(ran, false);
});
