// Audit retention (AUDIT_RETENTION): events older than the window are deleted by a periodic job; the
// only deletion audit_events ever sees (docs/audit-log.md).
import type { Clock } from '../clock.js';
import type { Db } from '../storage/database.js';
import { auditEventsRepository } from '../storage/audit-events-repository.js';

export const AUDIT_PURGE_INTERVAL_MS = 3600_000;

export function purgeExpiredAuditEvents(deps: { db: Db; clock: Clock; retentionSeconds: number }): Promise<number> {
  return auditEventsRepository(deps.db).purgeOlderThan(new Date(deps.clock.now() - deps.retentionSeconds * 1000));
}
