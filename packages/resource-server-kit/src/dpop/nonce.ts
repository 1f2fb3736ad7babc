// Server-provided DPoP nonces (RFC 9449 §8, §9), stateless so that every instance sharing the database
// accepts the nonces of every other: a nonce is the number of a time window plus an HMAC of it under a
// key derived from the key-encryption key (which all instances share already — the signing keys in the
// database are sealed under it). The current and the previous window are accepted, so a nonce lives
// between one and two windows; a proof signed now cannot be used beyond that (no pre-computed proofs).
// The next window is accepted too: only an instance whose clock runs a little ahead can have minted it,
// and refusing it would send a client to and fro between instances around a window boundary.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';

/** How long one nonce is handed out; it is accepted for one more window after that. */
export const DPOP_NONCE_WINDOW_SECONDS = 300;

const MAC_BYTES = 16;
const COUNTER_BYTES = 6;
/** base64url of counter + MAC: 22 bytes → 30 characters, nothing else is ever valid. */
const NONCE = /^[A-Za-z0-9_-]{30}$/;

export interface DpopNonces {
  /** The nonce to hand out now (DPoP-Nonce header). */
  current(): string;
  /** Whether `nonce` was handed out by an instance with the same key in this or the previous window. */
  accepts(nonce: unknown): boolean;
}

export function dpopNonces(keyEncryptionKey: Buffer, clock: Clock, windowSeconds = DPOP_NONCE_WINDOW_SECONDS): DpopNonces {
  const key = Buffer.from(hkdfSync('sha256', keyEncryptionKey, new Uint8Array(0), 'gatehouse dpop nonce', 32));
  const windowOf = (ms: number) => Math.floor(ms / 1000 / windowSeconds);
  const mac = (counter: Buffer) => createHmac('sha256', key).update(counter).digest().subarray(0, MAC_BYTES);
  const encode = (window: number) => {
    const counter = Buffer.alloc(COUNTER_BYTES);
    counter.writeUIntBE(window, 0, COUNTER_BYTES);
    return Buffer.concat([counter, mac(counter)]).toString('base64url');
  };
  return {
    current: () => encode(windowOf(clock.now())),
    accepts(nonce) {
      if (typeof nonce !== 'string' || !NONCE.test(nonce)) return false;
      const bytes = Buffer.from(nonce, 'base64url');
      const counter = bytes.subarray(0, COUNTER_BYTES);
      const age = windowOf(clock.now()) - counter.readUIntBE(0, COUNTER_BYTES);
      return age >= -1 && age <= 1 && timingSafeEqual(bytes.subarray(COUNTER_BYTES), mac(counter));
    },
  };
}
