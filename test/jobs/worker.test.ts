// The database job queue: jobs survive a restart (a new worker on the same database runs them), a job
// whose worker died is claimed again after its lease, failures retry and then fail for good, and
// two workers on one database never run a job twice.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { jobQueue, MAX_ATTEMPTS, type JobQueue } from '../../src/jobs/worker.js';
import { jobsRepository } from '../../src/storage/repositories/jobs-repository.js';
import type { Database } from '../../src/storage/driver/database.js';
import { createTestDatabase } from '../helpers/database.js';
import { createStore } from '../../src/storage/store.js';

const silent = { warn: () => {}, error: () => {} };
let database: Database;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.close());

const stateOf = async (id: string) => await database.db.selectFrom('jobs').select(['state', 'attempts']).where('id', '=', id).executeTakeFirstOrThrow();

test('a queued job survives a restart: a new worker on the same database runs it exactly once', async () => {
  const clock = manualClock();
  const first = jobQueue({ store: createStore(database.db, clock), clock, log: silent });
  const id = await first.enqueue(createStore(database.db, clock), 'survive', { n: 1 });
  await first.stop(); // the first process goes away before running anything

  const ran: unknown[] = [];
  const second = jobQueue({ store: createStore(database.db, clock), clock, log: silent });
  second.handle('survive', { run: async (payload) => void ran.push(payload) });
  await second.drain();
  await second.drain();
  assert.deepEqual(ran, [{ n: 1 }]);
  assert.equal((await stateOf(id)).state, 'done');
});

test('a job claimed by a worker that died is claimed again once its lease has passed', async () => {
  const clock = manualClock();
  const id = await jobQueue({ store: createStore(database.db, clock), clock, log: silent }).enqueue(createStore(database.db, clock), 'orphan', {});
  const claimed = await jobsRepository(database.db).claim(new Date(clock.now()), new Date(clock.now() + 60_000));
  assert.equal(claimed?.id, id); // …and then that worker crashed.
  let runs = 0;
  const queue = jobQueue({ store: createStore(database.db, clock), clock, log: silent });
  queue.handle('orphan', { run: async () => void (runs += 1) });
  assert.equal(await queue.runOnce(), false, 'still leased');
  clock.advance(10 * 60_000);
  assert.equal(await queue.runOnce(), true);
  assert.equal(runs, 1);
  assert.deepEqual(await stateOf(id), { state: 'done', attempts: 2 });
});

test(`a failing job is retried with backoff and after ${MAX_ATTEMPTS} attempts marked failed (its failed() hook runs once)`, async () => {
  const clock = manualClock();
  const queue: JobQueue = jobQueue({ store: createStore(database.db, clock), clock, log: silent });
  let failedCalls = 0;
  queue.handle('broken', { run: async () => Promise.reject(new Error('boom')), failed: async () => void (failedCalls += 1) });
  const id = await queue.enqueue(createStore(database.db, clock), 'broken', {});
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    assert.equal(await queue.runOnce(), true);
    clock.advance(60_000);
  }
  assert.equal(await queue.runOnce(), false);
  assert.deepEqual(await stateOf(id), { state: 'failed', attempts: MAX_ATTEMPTS });
  assert.equal(failedCalls, 1);
});

test('two workers draining one queue concurrently run every job exactly once (FOR UPDATE SKIP LOCKED)', async () => {
  const clock = manualClock();
  const runs = new Map<number, number>();
  const handler = { run: async (payload: unknown) => void runs.set((payload as { n: number }).n, (runs.get((payload as { n: number }).n) ?? 0) + 1) };
  const [a, b] = [
    jobQueue({ store: createStore(database.db, clock), clock, log: silent }),
    jobQueue({ store: createStore(database.db, clock), clock, log: silent }),
  ];
  a.handle('count', handler);
  b.handle('count', handler);
  for (let n = 0; n < 30; n++) await a.enqueue(createStore(database.db, clock), 'count', { n });
  await Promise.all([a.drain(), b.drain()]);
  assert.equal(runs.size, 30);
  assert.ok([...runs.values()].every((count) => count === 1));
});

test('the worker started with start() picks up work when woken and stops cleanly', async () => {
  const clock = manualClock();
  const queue = jobQueue({ store: createStore(database.db, clock), clock, log: silent });
  let resolveRan!: () => void;
  const ran = new Promise<void>((resolve) => (resolveRan = resolve));
  queue.handle('wake', { run: async () => resolveRan() });
  queue.start();
  await queue.enqueue(createStore(database.db, clock), 'wake', {});
  queue.wake();
  await ran;
  await queue.stop();
});
