// Services the shop resources (orders, payments, reports) share, built once per app by the composition
// root (src/services.ts): the idempotency mechanism and the cursor codec (its HMAC key derived from the
// key-encryption key).
import type { Core } from '../core.js';
import { idempotency, type Idempotency } from '../http/idempotency/index.js';
import { cursorCodec, cursorKey, type CursorCodec } from '../http/pagination/index.js';

export interface CommerceServices {
  idempotency: Idempotency;
  cursors: CursorCodec;
}

export function commerceServices(core: Pick<Core, 'db' | 'clock' | 'config' | 'keyEncryptionKey'>): CommerceServices {
  return {
    idempotency: idempotency({ db: core.db, clock: core.clock, config: core.config }),
    cursors: cursorCodec(cursorKey(core.keyEncryptionKey)),
  };
}
