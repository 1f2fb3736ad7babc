// The demo's session store is bounded (least recently used dropped first) and forgets idle sessions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sessionStore } from '../../src/demo/session-store.js';

test('the demo session store never holds more than its bound and drops the least recently used first', () => {
  const now = 0;
  const store = sessionStore<number>({ maxEntries: 3, maxPerOwner: 3, idleMs: 60_000, now: () => now });
  const ids = [0, 1, 2].map((n) => store.create(n, 'visitor'));
  assert.equal(store.get(ids[0]), 0, 'touching 0 makes 1 the least recently used');
  const fourth = store.create(3, 'visitor');
  assert.equal(store.size, 3);
  assert.equal(store.get(ids[1]), undefined);
  assert.deepEqual([store.get(ids[0]), store.get(ids[2]), store.get(fourth)], [0, 2, 3]);
  for (let i = 0; i < 1000; i++) store.create(i, 'visitor');
  assert.equal(store.size, 3);
});

test('an idle demo session expires; using it keeps it alive', () => {
  let now = 0;
  const store = sessionStore<string>({ maxEntries: 10, maxPerOwner: 10, idleMs: 1000, now: () => now });
  const kept = store.create('kept', 'visitor');
  const idle = store.create('idle', 'visitor');
  now = 900;
  assert.equal(store.get(kept), 'kept');
  now = 1500;
  assert.equal(store.get(kept), 'kept');
  assert.equal(store.get(idle), undefined);
});

test('rotating a demo session retires the old id', () => {
  const store = sessionStore<string>({ maxEntries: 10, maxPerOwner: 10, idleMs: 1000, now: () => 0 });
  const old = store.create('a', 'visitor');
  const fresh = store.rotate(old, 'b')!;
  assert.notEqual(fresh, old);
  assert.equal(store.get(old), undefined);
  assert.equal(store.get(fresh), 'b');
  assert.equal(store.rotate(old, 'c'), undefined, 'an unknown id cannot be rotated into a session');
  assert.equal(store.get(undefined), undefined);
});

test("one address cannot evict other visitors' demo sessions: it holds at most its per-address share of the store", () => {
  const store = sessionStore<string>({ maxEntries: 1000, maxPerOwner: 10, idleMs: 60_000, now: () => 0 });
  const others = Array.from({ length: 900 }, (_, i) => store.create(`visitor-${i}`, `198.51.100.${i}`));
  for (let i = 0; i < 1016; i++) store.create(`flood-${i}`, '203.0.113.7');
  assert.equal(store.size, 910, 'the flooding address holds its 10 sessions, no more');
  assert.ok(
    others.every((id, i) => store.get(id) === `visitor-${i}`),
    'every other visitor is still signed in',
  );
});
