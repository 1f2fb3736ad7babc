export {
  idempotency,
  IDEMPOTENCY_PURGE_INTERVAL_MS,
  fingerprintKey,
  keyIdentity,
  requestFingerprint,
  REPLAY_HEADER,
  type Idempotency,
  type Operation,
  type OperationResult,
  type IdempotencyOptions,
} from './idempotent-route.js';
export { parseIdempotencyKey, requireIdempotencyKey } from './key-header.js';
export { canonicalJson } from './canonical-json.js';
export { idempotencyKeyHeader } from './header-schema.js';
