// Services the shop resources (orders, payments, reports) share, built once per Core: the idempotency
// mechanism and the cursor codec (its HMAC key derived from the key-encryption key).
import type { Core } from '../core.js';
import { resolveKeyEncryptionKey } from '../crypto/key-encryption.js';
import { idempotency, type Idempotency } from '../http/idempotency/index.js';
import { cursorCodec, cursorKey, type CursorCodec } from '../http/pagination/index.js';

export interface CommerceServices {
  idempotency: Idempotency;
  cursors: CursorCodec;
}

const built = new WeakMap<Core, CommerceServices>();

export function commerceServices(core: Core): CommerceServices {
  let services = built.get(core);
  if (!services) {
    services = {
      idempotency: idempotency({ db: core.db, clock: core.clock, config: core.config }),
      cursors: cursorCodec(cursorKey(resolveKeyEncryptionKey(core.config))),
    };
    built.set(core, services);
  }
  return services;
}

/** How often expired idempotency records are purged. */
export const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60_000;
