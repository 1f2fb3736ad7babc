// The outbox worker on a real database (docs/outbox.md): a message exists exactly when its transaction
// committed; two workers never deliver one message twice (FOR UPDATE SKIP LOCKED); a message whose worker
// died is claimed again after its lease and the stale worker's late result is fenced off; failures back off
// exponentially and end as visible dead letters; secrets are sealed and gone once delivered; history is
// purged. The channel here is an in-process receiver that records what it was handed (the SMTP path is
// test/mail/). Each test uses its own channel name so that tests do not claim each other's messages.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import { manualClock } from '../../src/clock.js';
import { keyEncryption } from '../../src/crypto/key-encryption.js';
import { outboxWorker, type OutboxWorker } from '../../src/outbox/outbox.js';
import { outboxWriter } from '../../src/outbox/writer.js';
import { outboxMetrics } from '../../src/outbox/metrics.js';
import { PermanentDeliveryError, type OutboundMessage, type OutboxChannel } from '../../src/outbox/channel.js';
import { FIRST_RETRY_MS, MAX_RETRY_MS, retryDelayMs } from '../../src/outbox/backoff.js';
import { createStore } from '../../src/storage/store.js';
import type { Database } from '../../src/storage/driver/database.js';
import { createTestDatabase } from '../helpers/database.js';

const silent = { info: () => {}, warn: () => {}, error: () => {} };
const encryption = keyEncryption(randomBytes(32));
let database: Database;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.close());

type Clock = ReturnType<typeof manualClock>;

function recordingChannel(name: string, behaviour: (m: OutboundMessage) => Promise<void> = async () => {}): OutboxChannel & { received: OutboundMessage[] } {
  const received: OutboundMessage[] = [];
  return {
    name,
    received,
    async deliver(message) {
      await behaviour(message);
      received.push(message);
    },
  };
}

function worker(clock: Clock, channels: OutboxChannel[], extra: { leaseMs?: number; log?: typeof silent } = {}): OutboxWorker {
  return outboxWorker({
    store: createStore(database.db, clock),
    clock,
    log: extra.log ?? silent,
    encryption,
    channels,
    metrics: outboxMetrics(createStore(database.db, clock).outbox, () => clock.now()),
    retention: { deliveredSeconds: 7 * 86_400, deadSeconds: 90 * 86_400 },
    ...(extra.leaseMs !== undefined ? { leaseMs: extra.leaseMs } : {}),
  });
}

const writerFor = (clock: Clock) => outboxWriter({ encryption, clock });
const rowOf = (id: string) => database.db.selectFrom('outbox_messages').selectAll().where('id', '=', id).executeTakeFirst();

async function enqueue(clock: Clock, channel: string, n = 1, secret?: Record<string, unknown>): Promise<string[]> {
  const writer = writerFor(clock);
  return createStore(database.db, clock).transaction(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++)
      ids.push(await writer.enqueue(tx, { channel, kind: 'test', recipient: `r${i}@example.test`, payload: { i }, ...(secret ? { secret } : {}) }));
    return ids;
  });
}

test('a message is written in the transaction of its cause: a rollback leaves none, a commit one that is delivered once', async () => {
  const clock = manualClock();
  const writer = writerFor(clock);
  let woken = 0;
  writer.onCommitted(() => void (woken += 1));
  await assert.rejects(
    createStore(database.db, clock).transaction(async (tx) => {
      await writer.enqueue(tx, { channel: 'tx_test', kind: 'test', recipient: 'a@example.test', payload: {} });
      throw new Error('the change failed');
    }),
  );
  assert.equal(woken, 0, 'no wake-up for a rolled-back message');
  const channel = recordingChannel('tx_test');
  const w = worker(clock, [channel]);
  await w.drain();
  assert.equal(channel.received.length, 0);

  const [id] = await createStore(database.db, clock).transaction(async (tx) => [
    await writer.enqueue(tx, { channel: 'tx_test', kind: 'test', recipient: 'a@example.test', payload: { hello: 1 } }),
  ]);
  assert.equal(woken, 1, 'the worker is woken after the commit');
  await w.drain();
  await w.drain();
  assert.deepEqual(
    channel.received.map((m) => [m.id, m.payload, m.attempt]),
    [[id, { hello: 1 }, 1]],
  );
  assert.equal((await rowOf(id!))?.state, 'delivered');
});

test('outbox exactly once across instances (FOR UPDATE SKIP LOCKED): two workers draining the same 40 messages at once deliver each exactly once', async () => {
  const clock = manualClock();
  const ids = await enqueue(clock, 'race', 40);
  // A little latency per delivery, so the two workers really overlap.
  const slow = () => new Promise<void>((resolve) => setTimeout(resolve, 2));
  const a = recordingChannel('race', slow);
  const b = recordingChannel('race', slow);
  await Promise.all([worker(clock, [a]).drain(), worker(clock, [b]).drain(), worker(clock, [a]).drain(), worker(clock, [b]).drain()]);
  const delivered = [...a.received, ...b.received].map((m) => m.id).sort();
  assert.deepEqual(delivered, [...ids].sort());
  assert.ok(a.received.length > 0 && b.received.length > 0, 'both instances took part');
});

test('outbox lease: a message whose worker died mid-delivery is claimed again once its lease passes, and the dead worker’s late result is fenced off', async () => {
  const clock = manualClock();
  const [id] = await enqueue(clock, 'lease');
  const claimed = await createStore(database.db, clock).outbox.claim(new Date(clock.now()), new Date(clock.now() + 60_000));
  assert.equal(claimed?.id, id); // …and then that worker's process was killed.
  const channel = recordingChannel('lease');
  const w = worker(clock, [channel]);
  assert.equal(await w.runOnce(), false, 'still leased: nobody else may deliver it');
  clock.advance(60_001);
  assert.equal(await w.runOnce(), true);
  assert.equal(channel.received.length, 1);
  assert.equal(channel.received[0]!.attempt, 2);
  // The first worker comes back late and reports its outcome: it no longer holds the message.
  assert.equal(await createStore(database.db, clock).outbox.retryLater(claimed!, 'late', new Date(clock.now()), new Date(clock.now())), false);
  assert.equal((await rowOf(id!))?.state, 'delivered');
});

test('outbox retries with exponential back-off, then keeps a dead letter with its error (and a log line and a metric)', async () => {
  const clock = manualClock();
  const writer = writerFor(clock);
  const [id] = await createStore(database.db, clock).transaction(async (tx) => [
    await writer.enqueue(tx, {
      channel: 'flaky',
      kind: 'test',
      recipient: 'x@example.test',
      payload: {},
      secret: { link: 'https://example.test/?token=s3cret' },
      maxAttempts: 4,
    }),
  ]);
  const failing = recordingChannel('flaky', async () => Promise.reject(new Error('connection refused')));
  const logged: { level: string; msg: string }[] = [];
  const log = {
    info: () => {},
    warn: (_: object, msg: string) => void logged.push({ level: 'warn', msg }),
    error: (_: object, msg: string) => void logged.push({ level: 'error', msg }),
  };
  const metrics = outboxMetrics(createStore(database.db, clock).outbox, () => clock.now());
  const w = outboxWorker({
    store: createStore(database.db, clock),
    clock,
    log,
    encryption,
    channels: [failing],
    metrics,
    retention: { deliveredSeconds: 86_400, deadSeconds: 86_400 },
  });
  const gaps: number[] = [];
  for (let attempt = 1; attempt <= 4; attempt++) {
    assert.equal(await w.runOnce(), true, `attempt ${attempt} is due`);
    const row = (await rowOf(id!))!;
    if (attempt < 4) {
      assert.equal(row.state, 'pending');
      const gap = row.next_attempt_at.getTime() - clock.now();
      gaps.push(gap);
      assert.ok(gap >= retryDelayMs(attempt, () => 0) && gap <= retryDelayMs(attempt, () => 1), `gap after attempt ${attempt}: ${gap}`);
      clock.advance(gap - 1);
      assert.equal(await w.runOnce(), false, 'not before its time');
      clock.advance(1);
    }
  }
  assert.ok(gaps[1]! > gaps[0]! && gaps[2]! > gaps[1]!, `back-off grows: ${gaps}`);
  const dead = (await rowOf(id!))!;
  assert.equal(dead.state, 'dead');
  assert.equal(dead.attempts, 4);
  assert.match(dead.last_error ?? '', /connection refused/);
  assert.equal(dead.sealed_secret, null, 'a dead letter keeps no secret');
  assert.deepEqual(
    logged.map((l) => l.level),
    ['warn', 'warn', 'warn', 'error'],
  );
  const registry = new Registry();
  metrics.register(registry);
  const text = await registry.metrics();
  assert.match(text, /outbox_deliveries_total\{channel="flaky",outcome="retry"\} 3/);
  assert.match(text, /outbox_deliveries_total\{channel="flaky",outcome="dead"\} 1/);
  assert.match(text, /outbox_messages\{channel="flaky",state="dead"\} 1/);
});

test('a permanent refusal makes a dead letter at once, without retries', async () => {
  const clock = manualClock();
  const [id] = await enqueue(clock, 'refused');
  const w = worker(clock, [recordingChannel('refused', async () => Promise.reject(new PermanentDeliveryError('550 no such mailbox')))]);
  await w.drain();
  assert.deepEqual([(await rowOf(id!))?.state, (await rowOf(id!))?.attempts], ['dead', 1]);
});

test('back-off doubles from 10 s up to an hour, with at most 20% added', () => {
  assert.equal(
    retryDelayMs(1, () => 0),
    FIRST_RETRY_MS,
  );
  assert.equal(
    retryDelayMs(2, () => 0),
    2 * FIRST_RETRY_MS,
  );
  assert.equal(
    retryDelayMs(30, () => 0),
    MAX_RETRY_MS,
  );
  assert.equal(
    retryDelayMs(1, () => 1),
    1.2 * FIRST_RETRY_MS,
  );
});

test('outbox secrets are sealed at rest: the row never holds the link in clear, the channel gets it opened, and it is gone once delivered', async () => {
  const clock = manualClock();
  const [id] = await enqueue(clock, 'sealed', 1, { link: 'https://example.test/invitation?token=VERY-SECRET' });
  const before = (await rowOf(id!))!;
  assert.ok(before.sealed_secret);
  assert.doesNotMatch(JSON.stringify(before), /VERY-SECRET/);
  const channel = recordingChannel('sealed');
  await worker(clock, [channel]).drain();
  assert.deepEqual(channel.received[0]!.secret, { link: 'https://example.test/invitation?token=VERY-SECRET' });
  assert.equal((await rowOf(id!))!.sealed_secret, null);
});

test('a message for a channel this instance does not have stays undelivered and is retried (another instance may have it)', async () => {
  const clock = manualClock();
  const [id] = await enqueue(clock, 'elsewhere');
  await worker(clock, []).runOnce();
  const row = (await rowOf(id!))!;
  assert.equal(row.state, 'pending');
  assert.match(row.last_error ?? '', /not configured/);
});

test('outbox history is bounded: delivered messages are purged after their retention, dead letters after theirs', async () => {
  const clock = manualClock();
  const [deliveredId] = await enqueue(clock, 'purge_ok');
  const [deadId] = await enqueue(clock, 'purge_dead');
  const w = worker(clock, [recordingChannel('purge_ok'), recordingChannel('purge_dead', async () => Promise.reject(new PermanentDeliveryError('no')))]);
  await w.drain();
  clock.advance(7 * 86_400_000 + 1000);
  await w.purge();
  assert.equal(await rowOf(deliveredId!), undefined, 'delivered: purged after 7 days');
  assert.equal((await rowOf(deadId!))?.state, 'dead', 'dead letters stay visible longer');
  clock.advance(90 * 86_400_000);
  await w.purge();
  assert.equal(await rowOf(deadId!), undefined);
});

test('outbox per-subject order: a message is not claimed while an earlier one with its ordering key is undelivered; two workers keep each key in order, other keys pass', async () => {
  const clock = manualClock();
  const writer = writerFor(clock);
  const ids = await createStore(database.db, clock).transaction(async (tx) => {
    const out: string[] = [];
    for (let i = 0; i < 12; i++)
      out.push(await writer.enqueue(tx, { channel: 'ordered', kind: 'test', recipient: 'r', payload: { i }, orderingKey: `subject-${i % 3}` }));
    out.push(await writer.enqueue(tx, { channel: 'ordered', kind: 'test', recipient: 'r', payload: { free: true } }));
    return out;
  });
  // Subject 0's first message fails once: everything of subject 0 waits for its retry, the others go on.
  let failed = false;
  const accepted: number[] = [];
  const slow = () => new Promise<void>((resolve) => setTimeout(resolve, 2));
  const behaviour = async (m: OutboundMessage) => {
    await slow();
    const { i } = m.payload as { i?: number };
    if (i === 0 && !failed) {
      failed = true;
      throw new Error('receiver down');
    }
    if (i !== undefined) accepted.push(i);
  };
  const a = recordingChannel('ordered', behaviour);
  const b = recordingChannel('ordered', behaviour);
  const [wa, wb] = [worker(clock, [a]), worker(clock, [b])];
  await Promise.all([wa.drain(), wb.drain()]);
  const delivered = () => [...a.received, ...b.received];
  assert.equal(
    delivered().some((m) => (m.payload as { i?: number }).i !== undefined && (m.payload as { i: number }).i % 3 === 0),
    false,
    'subject 0 waits behind its failed first message',
  );
  assert.ok(
    delivered().some((m) => (m.payload as { free?: boolean }).free),
    'a message without a key is not held',
  );
  clock.advance(3600_000);
  await Promise.all([wa.drain(), wb.drain()]);
  assert.equal(delivered().length, ids.length);
  // Per subject, the receiver accepted the messages in the order they were written, though two workers raced.
  for (const subject of [0, 1, 2]) {
    assert.deepEqual(
      accepted.filter((i) => i % 3 === subject),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].filter((i) => i % 3 === subject),
      `subject-${subject}`,
    );
  }
});
