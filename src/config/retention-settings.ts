// How long records are kept: idempotency keys and their lease (docs/idempotency.md), audit events
// (docs/audit-log.md).
import { seconds, type Setting } from './setting.js';

export const retentionSettings = {
  IDEMPOTENCY_TTL: seconds('Retention of idempotency keys.', 86_400, 60),
  AUDIT_RETENTION: seconds(
    'Retention of audit events (docs/audit-log.md); purged hourly up to the newest signed checkpoint older than this, which becomes where the chain begins.',
    7_776_000,
    86_400,
    315_360_000,
  ),
  AUDIT_CHECKPOINT_INTERVAL: seconds(
    'How often the audit chain head is signed and published at /.well-known/audit-checkpoints (once for the whole deployment; docs/audit-log.md).',
    3600,
    60,
    86_400,
  ),
  IDEMPOTENCY_LEASE: seconds('A keyed request still running after this long is treated as abandoned.', 30, 1, 3600),
} satisfies Record<string, Setting<unknown>>;
