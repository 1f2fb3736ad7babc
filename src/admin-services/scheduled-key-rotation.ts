// Automatic key rotation (KEY_ROTATION_INTERVAL, docs/key-rotation.md): each instance checks periodically;
// under a deployment-wide lock, an algorithm whose newest key was published at least one interval ago is
// rotated with the same service as `gatehouse keys rotate` (the staged schedule, its audit events, one
// transaction). The decision is read from the key rows after taking the lock, so when two instances check at
// once the second sees the first one's new key and rotates nothing; a restart loses no timer.
import type { Clock } from '../clock.js';
import { SIGNING_ALGS, type KeyScheduleEntry, type SigningAlg } from '../crypto/keys.js';
import { rotateSigningKeys, type SigningKeyServiceDeps } from './signing-keys-service.js';

/** How often each instance looks; a rotation is therefore at most this late. */
export const KEY_ROTATION_CHECK_MS = 10 * 60_000;

export function rotateKeysWhenDue(deps: SigningKeyServiceDeps & { clock: Clock }, intervalSeconds: number): Promise<KeyScheduleEntry[]> {
  return deps.store.transaction(async (tx) => {
    await tx.locks.task('key-rotation');
    const rows = await tx.signingKeys.listAll();
    const dueBy = deps.clock.now() - intervalSeconds * 1000;
    const due = SIGNING_ALGS.filter((alg: SigningAlg) => {
      const newest = Math.max(...rows.filter((r) => r.alg === alg).map((r) => r.createdAt.getTime()));
      return newest <= dueBy;
    });
    if (due.length === 0) return [];
    return rotateSigningKeys({ ...deps, store: tx }, due, { actor: { kind: 'system' } });
  });
}
