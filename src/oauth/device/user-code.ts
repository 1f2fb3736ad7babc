// RFC 8628 6.1 user codes: what a person reads on a television and types on a phone. Eight letters from 20
// consonants (no vowels, so no words are spelled by accident; no digits, so nothing reads as 0/O or 1/I),
// shown as XXXX-XXXX. Typed input is compared case-insensitively and without dashes or spaces.
// Entropy: 20^8 = 2.56e10 codes, about 34.6 bits; with the per-address and per-code budgets this is far
// beyond the RFC's example (docs/device-flow.md gives the arithmetic).
import { randomInt } from 'node:crypto';

/** RFC 8628 6.1's example alphabet: BCDFGHJKLMNPQRSTVWXZ. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

/** A fresh user code, normalized (8 letters, no dash): draw each letter uniformly (randomInt has no modulo bias). */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** How the code is shown: XXXX-XXXX. */
export const formatUserCode = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`;

const SEPARATORS = /[\s-]/g;
const WELL_FORMED = new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`);

/** The typed code in its stored form, or undefined when it cannot be a user code at all (never looked up). */
export function normalizeUserCode(typed: string): string | undefined {
  if (typed.length > 32) return undefined;
  const code = typed.replace(SEPARATORS, '').toUpperCase();
  return WELL_FORMED.test(code) ? code : undefined;
}
