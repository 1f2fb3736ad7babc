// The idempotency state table (docs/idempotency.md) as one decision: reserve the key, replay, or refuse.
//   absent → running (reserved atomically, INSERT … ON CONFLICT DO NOTHING) → the caller runs the operation
//   completed + same body → replay;  any state + different body → 422 idempotency-key-reuse
//   running within its lease → 409 idempotency-key-in-use + Retry-After
//   running past its lease (the process died mid-request) → taken over atomically, runs again
//   completed past the retention TTL → treated as absent
import type { Clock } from '../../clock.js';
import { randomToken } from '../../crypto/random.js';
import { ProblemError } from '../errors.js';
import type { IdempotencyIdentity, IdempotencyKeysRepository, StoredResponse } from '../../storage/repositories/idempotency-keys-repository.js';

export type Reservation = { kind: 'owner'; ownerToken: string } | { kind: 'replay'; response: StoredResponse };

export interface ReservationPolicy {
  ttlSeconds: number;
  leaseSeconds: number;
}

export async function reserveKey(
  deps: { repository: IdempotencyKeysRepository; clock: Clock; policy: ReservationPolicy },
  id: IdempotencyIdentity,
  requestHash: string,
): Promise<Reservation> {
  const { repository, clock, policy } = deps;
  // A few rounds at most: each lost race means another request changed the row in between.
  for (let round = 0; round < 3; round++) {
    const now = clock.now();
    const ownerToken = randomToken(16);
    const lockedUntil = new Date(now + policy.leaseSeconds * 1000);
    if (await repository.reserve(id, { requestHash, ownerToken, now: new Date(now), lockedUntil, expiresAt: new Date(now + policy.ttlSeconds * 1000) })) {
      return { kind: 'owner', ownerToken };
    }
    const existing = await repository.find(id);
    if (!existing) continue;
    if (existing.expiresAt.getTime() <= now) {
      await repository.deleteIfExpired(id, new Date(now));
      continue;
    }
    if (existing.requestHash !== requestHash) {
      throw new ProblemError('idempotency-key-reuse', 'This Idempotency-Key was first used with a different request body.');
    }
    if (existing.state === 'completed') return { kind: 'replay', response: existing.response };
    if (existing.lockedUntil.getTime() > now) throw inUse(existing.lockedUntil.getTime() - now);
    if (await repository.takeOver(id, { ownerToken, now: new Date(now), lockedUntil })) return { kind: 'owner', ownerToken };
  }
  throw inUse(1000);
}

export function inUse(remainingMs: number): ProblemError {
  const seconds = Math.max(1, Math.ceil(remainingMs / 1000));
  return new ProblemError('idempotency-key-in-use', 'A request with this Idempotency-Key is still being processed.', {
    headers: { 'retry-after': String(seconds) },
  });
}
