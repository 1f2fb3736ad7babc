// Opaque, integrity-protected cursors (docs/api-conventions.md): base64url of the last row's sort key
// (created_at, id) plus an HMAC-SHA256 that also covers the listing and filter it was issued for, so an
// edited, forged or foreign cursor — or one replayed against another filter — is refused with 400
// `invalid-cursor` instead of silently restarting at page 1. The HMAC key is derived (HKDF, RFC 5869)
// from the key-encryption key every instance already shares; it is never logged or stored.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { ProblemError } from '../errors.js';

export interface CursorPosition {
  createdAt: Date;
  id: string;
}

export interface CursorCodec {
  encode(position: CursorPosition, scope: string): string;
  /** Throws 400 `invalid-cursor` unless the cursor was issued by this service for exactly this scope. */
  decode(cursor: string, scope: string): CursorPosition;
}

const MAC_BYTES = 16;
const MAX_CURSOR_LENGTH = 512;

export function cursorKey(keyEncryptionKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', keyEncryptionKey, 'gatehouse', 'pagination-cursor-v1', 32));
}

export function cursorCodec(key: Buffer): CursorCodec {
  const mac = (payload: string, scope: string) => createHmac('sha256', key).update(`${scope}\n${payload}`).digest().subarray(0, MAC_BYTES);
  return {
    encode(position, scope) {
      const payload = Buffer.from(JSON.stringify([position.createdAt.getTime(), position.id])).toString('base64url');
      return `${payload}.${mac(payload, scope).toString('base64url')}`;
    },
    decode(cursor, scope) {
      const [payload, tag, extra] = cursor.length <= MAX_CURSOR_LENGTH ? cursor.split('.') : [];
      if (!payload || !tag || extra !== undefined) throw invalidCursor();
      const given = Buffer.from(tag, 'base64url');
      const expected = mac(payload, scope);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
      const position = parsePosition(Buffer.from(payload, 'base64url').toString('utf8'));
      if (!position) throw invalidCursor();
      return position;
    },
  };
}

function parsePosition(json: string): CursorPosition | undefined {
  try {
    const value: unknown = JSON.parse(json);
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [ms, id] = value as [unknown, unknown];
    if (!Number.isSafeInteger(ms) || typeof id !== 'string' || id.length === 0 || id.length > 200) return undefined;
    return { createdAt: new Date(ms as number), id };
  } catch {
    return undefined;
  }
}

const invalidCursor = () => new ProblemError('invalid-cursor', 'The cursor is not valid for this listing; start again from the first page.');
