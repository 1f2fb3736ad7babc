// Automatic key rotation (KEY_ROTATION_INTERVAL, docs/key-rotation.md): each instance checks periodically;
// under a deployment-wide lock, an algorithm whose newest key was published at least one interval ago is
// rotated with the same service as `gatehouse keys rotate` (the staged schedule, its audit events, one
// transaction). The decision is read from the key rows after taking the lock, so when two instances check at
// once the second sees the first one's new key and rotates nothing; a restart loses no timer.
import type { Clock } from '../clock.js';
import { SIGNING_ALGS, type KeyScheduleEntry, type SigningAlg } from '../crypto/keys.js';
import { signingKeysRepository } from '../storage/signing-keys-repository.js';
import { lockTask } from '../storage/task-locks.js';
import { rotateSigningKeys, type SigningKeyServiceDeps } from './signing-keys-service.js';
import { inTransaction } from './transaction.js';

/** How often each instance looks; a rotation is therefore at most this late. */
export const KEY_ROTATION_CHECK_MS = 10 * 60_000;

export function rotateKeysWhenDue(deps: SigningKeyServiceDeps & { clock: Clock }, intervalSeconds: number): Promise<KeyScheduleEntry[]> {
  return inTransaction(deps.db, async (tx) => {
    await lockTask(tx, 'key-rotation');
    const rows = await signingKeysRepository(tx).listAll();
    const dueBy = deps.clock.now() - intervalSeconds * 1000;
    const due = SIGNING_ALGS.filter((alg: SigningAlg) => {
      const newest = Math.max(...rows.filter((r) => r.alg === alg).map((r) => r.createdAt.getTime()));
      return newest <= dueBy;
    });
    if (due.length === 0) return [];
    return rotateSigningKeys({ ...deps, db: tx }, due, { actor: { kind: 'system' } });
  });
}
