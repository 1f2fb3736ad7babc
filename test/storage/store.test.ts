// src/storage/store.ts, the unit of work: work registered with afterCommit runs only once its transaction has
// committed, and the transaction's caller gets its answer only after that work — async work included — is
// done, so whoever asked for a change sees its effects when the call returns (a key rotation's re-read of
// the keys, docs/key-rotation.md). A rollback drops the callbacks; an inner transaction joins the outer one;
// a transaction opened around the store cannot take callbacks it would never run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/clock.js';
import type { Database } from '../../src/storage/driver/database.js';
import { createStore, dbOf, type Store } from '../../src/storage/store.js';
import { createTestDatabase } from '../helpers/database.js';

let database: Database;
let store: Store;
before(async () => {
  database = await createTestDatabase();
  store = createStore(database.db, systemClock);
});
after(() => database.close());

test('store.transaction answers only after an async afterCommit callback has finished', async () => {
  const order: string[] = [];
  let finish!: () => void;
  let started!: () => void;
  const callbackStarted = new Promise<void>((resolve) => (started = resolve));
  const transaction = store
    .transaction(async (tx) => {
      tx.afterCommit(() => {
        order.push('callback started');
        started();
        return new Promise<void>((resolve) => (finish = resolve)).then(() => {
          order.push('callback finished');
        });
      });
      return 'result';
    })
    .then((result) => {
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
    store.transaction(async (tx) => {
      tx.afterCommit(() => {
        ran = true;
      });
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.equal(ran, false);
});

test('a transaction opened inside one joins it: its callbacks wait for the outer commit, and its writes roll back with it', async () => {
  const order: string[] = [];
  await store.transaction(async (outer) => {
    await outer.transaction(async (inner) => {
      assert.equal(inner, outer, 'the joined transaction hands over the same store');
      inner.afterCommit(() => void order.push('inner callback'));
    });
    order.push('outer work done');
  });
  assert.deepEqual(order, ['outer work done', 'inner callback']);

  let jobId: string | undefined;
  await assert.rejects(
    store.transaction(async (outer) => {
      jobId = await outer.transaction((inner) => inner.jobs.enqueue({ kind: 'joined', payload: {}, now: new Date() }));
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.ok(jobId);
  assert.equal(await database.db.selectFrom('jobs').select('id').where('id', '=', jobId).executeTakeFirst(), undefined);
});

test('afterCommit outside a transaction runs at once', () => {
  let ran = false;
  store.afterCommit(() => {
    ran = true;
  });
  assert.ok(ran);
});

test('a transaction not opened by a store refuses afterCommit instead of dropping the callback', async () => {
  await assert.rejects(
    database.db.transaction().execute(async (trx) => {
      createStore(trx, systemClock).afterCommit(() => {});
    }),
    /store\.transaction/,
  );
});

test("a store builds each repository once, and a transaction's store reads and writes through that transaction", async () => {
  assert.equal(store.users, store.users);
  assert.equal(store.inTransaction, false);
  await store.transaction(async (tx) => {
    assert.equal(tx.inTransaction, true);
    assert.notEqual(tx.users, store.users);
    assert.equal(dbOf(tx).isTransaction, true);
  });
});
