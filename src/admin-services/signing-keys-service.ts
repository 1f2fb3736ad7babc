// Signing-key administration, written once for the CLI (`gatehouse keys list|rotate`) and the admin API
// (/admin/v1/signing-keys): the schedule of every key (never private material), and rotation on the
// schedule of docs/key-rotation.md, each new key and its `signing_key.rotated` event in one transaction.
import type { Store } from '../storage/store.js';
import type { KeyScheduleEntry, KeyService, SigningAlg } from '../crypto/keys.js';
import type { AuditSink } from '../audit/audit-sink.js';
import { AdminRuleError } from './rule-error.js';
import type { ActingAs } from './clients-service.js';

export interface SigningKeyServiceDeps {
  store: Store;
  keys: Pick<KeyService, 'rotate' | 'reload' | 'schedule'>;
  audit: AuditSink;
}

/** Every key with its schedule, oldest first (published, then kid): the set is small, two keys per rotation. */
export async function listSigningKeys(deps: Pick<SigningKeyServiceDeps, 'keys'>): Promise<KeyScheduleEntry[]> {
  return (await deps.keys.schedule()).sort((a, b) => a.published_at.localeCompare(b.published_at) || a.kid.localeCompare(b.kid));
}

export async function findSigningKey(deps: Pick<SigningKeyServiceDeps, 'keys'>, kid: string): Promise<KeyScheduleEntry> {
  const key = (await deps.keys.schedule()).find((k) => k.kid === kid);
  if (!key) throw new AdminRuleError('not-found', `no signing key ${kid}`);
  return key;
}

/**
 * Publishes a new key per algorithm; each signs once every instance has served it for a whole JWKS cache
 * time, and the key it replaces retires then (docs/key-rotation.md). The rows and their audit events
 * commit together; this instance re-reads its keys after the commit.
 */
export async function rotateSigningKeys(deps: SigningKeyServiceDeps, algs: readonly SigningAlg[], as: ActingAs): Promise<KeyScheduleEntry[]> {
  return deps.store.transaction(async (tx) => {
    const rotated: KeyScheduleEntry[] = [];
    for (const alg of algs) {
      const key = await deps.keys.rotate(alg, tx.signingKeys);
      await deps.audit.emit(
        {
          type: 'signing_key.rotated',
          actor: as.actor,
          resource: 'signing-key',
          resourceId: key.kid,
          details: { alg: key.alg, activates_at: key.activates_at },
          ...(as.traceId ? { traceId: as.traceId } : {}),
        },
        { tx },
      );
      rotated.push(key);
    }
    // Awaited by the committer, so the caller's next JWKS request already serves the new key. A failed
    // re-read is harmless: the regular refresh (KEY_REFRESH_INTERVAL) comes before the key signs.
    tx.afterCommit(() => deps.keys.reload().catch(() => undefined));
    return rotated;
  });
}
