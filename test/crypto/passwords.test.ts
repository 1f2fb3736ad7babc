import { test } from 'node:test';
import { availableParallelism } from 'node:os';
import assert from 'node:assert/strict';
import { hashPassword, passwordHashing, PASSWORD_HASH_CONCURRENCY, verifyPassword } from '../../src/crypto/passwords.js';

test('passwords are hashed with argon2id at OWASP parameters (m=19 MiB, t=2, p=1)', async () => {
  const stored = await hashPassword('correct horse');
  assert.match(stored, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  assert.equal(await verifyPassword(stored, 'correct horse'), true);
  assert.equal(await verifyPassword(stored, 'wrong'), false);
  assert.equal(await verifyPassword('not-a-hash', 'x'), false);
});

test('password hashing is bounded: at most PASSWORD_HASH_CONCURRENCY argon2 runs at once, the rest wait', async () => {
  const stored = await hashPassword('correct horse');
  const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  assert.ok(PASSWORD_HASH_CONCURRENCY >= 1 && PASSWORD_HASH_CONCURRENCY <= availableParallelism(), 'at most one hash per core');
  assert.ok(PASSWORD_HASH_CONCURRENCY === 1 || PASSWORD_HASH_CONCURRENCY < pool, 'the thread pool keeps a thread for signing');
  const burst = Array.from({ length: PASSWORD_HASH_CONCURRENCY + 3 }, (_, i) => verifyPassword(stored, i === 0 ? 'correct horse' : 'wrong'));
  assert.equal(passwordHashing.running, PASSWORD_HASH_CONCURRENCY);
  assert.equal(passwordHashing.waiting, 3);
  const results = await Promise.all(burst);
  assert.deepEqual(results, [true, ...Array.from({ length: PASSWORD_HASH_CONCURRENCY + 2 }, () => false)]);
  assert.equal(passwordHashing.running, 0);
});
