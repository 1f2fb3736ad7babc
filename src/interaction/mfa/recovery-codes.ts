// Recovery codes: ten single-use codes shown once when a second factor is set up (or regenerated). Each is
// 80 random bits written as four groups of four base32 characters, so a single SHA-256 is enough to store
// it (docs/secrets-storage.md: high-entropy values need no slow hash); the user types it with or without
// dashes, in any case.
import { randomBytes } from 'node:crypto';
import { sha256 } from '../../crypto/random.js';

const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function newCode(): string {
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < 16; i++) out += ALPHABET[Number((bits >> BigInt(75 - i * 5)) & 31n)];
  return out.match(/.{4}/g)!.join('-');
}

export const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODE_COUNT }, newCode);

/** The normalised code's hash; undefined for anything that cannot be a recovery code. */
export function recoveryCodeHash(typed: string): string | undefined {
  const normal = typed.replace(/[\s-]/g, '').toUpperCase();
  return /^[A-Z2-7]{16}$/.test(normal) ? sha256(normal.match(/.{4}/g)!.join('-')) : undefined;
}
