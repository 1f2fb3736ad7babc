// Expired single-use records are purged: the replay tables only need rows while a replay could still pass.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { expiredJtiPurge } from '../../src/oauth/housekeeping.js';
import { clientAssertionsRepository } from '../../src/storage/client-assertions-repository.js';
import { dpopProofsRepository } from '../../src/storage/dpop-proofs-repository.js';
import { revocationsRepository } from '../../src/storage/revocations-repository.js';
import type { Database } from '../../src/storage/database.js';
import { createTestDatabase } from '../helpers/database.js';

let database: Database;
const clock = manualClock(Date.parse('2026-06-01T00:00:00Z'));
before(async () => {
  database = await createTestDatabase();
});
after(() => database.close());

test('expired client-assertion jtis, DPoP-proof jtis and revoked access-token jtis are purged; live ones stay', async () => {
  const at = (seconds: number) => new Date(clock.now() + seconds * 1000);
  const assertions = clientAssertionsRepository(database.db, clock);
  const proofs = dpopProofsRepository(database.db, clock);
  const revocations = revocationsRepository(database.db, clock);
  await assertions.consume('c', 'old', at(-1));
  await assertions.consume('c', 'live', at(60));
  await proofs.consume('k', 'old', at(-1));
  await proofs.consume('k', 'live', at(60));
  await revocations.revoke([{ jti: 'old', expiresAt: at(-1) }, { jti: 'live', expiresAt: at(60) }]);

  assert.equal(await expiredJtiPurge({ db: database.db, clock })(), 3);
  assert.equal(await assertions.consume('c', 'live', at(60)), false, 'a live assertion jti is still remembered');
  assert.equal(await proofs.consume('k', 'live', at(60)), false, 'a live proof jti is still remembered');
  assert.equal(await revocations.isRevoked('live'), true);
  assert.equal(await revocations.isRevoked('old'), false);
});
