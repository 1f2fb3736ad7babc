// How long records are kept: idempotency keys and their lease (docs/idempotency.md), audit events
// (docs/audit-log.md).
import { seconds, type Setting } from './setting.js';

export const retentionSettings = {
  IDEMPOTENCY_TTL: seconds('Retention of idempotency keys.', 86_400, 60),
  AUDIT_RETENTION: seconds('Retention of audit events (docs/audit-log.md); older events are purged hourly.', 7_776_000, 86_400, 315_360_000),
  IDEMPOTENCY_LEASE: seconds('A keyed request still running after this long is treated as abandoned.', 30, 1, 3600),
} satisfies Record<string, Setting<unknown>>;
