// Audit retention (AUDIT_RETENTION): a periodic job deletes old events — the only deletion audit_events ever
// sees — without breaking the chain: it deletes only the prefix the newest checkpoint issued before the cutoff
// covers, and that signed checkpoint becomes the chain's anchor, where `audit verify` begins
// (docs/audit-log.md). An event therefore outlives the window by at most one checkpoint interval.
import type { Clock } from '../clock.js';
import type { Store } from '../storage/store.js';

export const AUDIT_PURGE_INTERVAL_MS = 3600_000;

export function purgeExpiredAuditEvents(deps: { store: Store; clock: Clock; retentionSeconds: number }): Promise<number> {
  return deps.store.auditChain.purgeThroughCheckpoint(new Date(deps.clock.now() - deps.retentionSeconds * 1000));
}
