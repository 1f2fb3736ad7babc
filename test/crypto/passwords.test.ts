import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword, verifyPassword } from '../../src/crypto/passwords.js';

test('passwords are hashed with argon2id at OWASP parameters (m=19 MiB, t=2, p=1)', async () => {
  const stored = await hashPassword('correct horse');
  assert.match(stored, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  assert.equal(await verifyPassword(stored, 'correct horse'), true);
  assert.equal(await verifyPassword(stored, 'wrong'), false);
  assert.equal(await verifyPassword('not-a-hash', 'x'), false);
});
