// email_verified / phone_number_verified (OIDC Core 5.1) say that *this* address was verified. Relying
// parties link accounts by a verified e-mail, so a flag must never outlive the address it was about, and
// only an operator (the CLI) may raise one: through the API a flag can be kept or cleared, never set.
import type { FieldError } from '../http/errors.js';
import type { UserProfile } from '../storage/repositories/users-repository.js';

type Contact = Pick<UserProfile, 'email' | 'phone_number'>;
type Flags = Pick<UserProfile, 'email_verified' | 'phone_number_verified'>;

const PAIRS = [
  ['email', 'email_verified'],
  ['phone_number', 'phone_number_verified'],
] as const;

export interface VerifiedOutcome {
  flags: Flags;
  /** API writes that tried to raise a flag; empty for the operator. */
  errors: FieldError[];
}

/**
 * The flags after a write. `requested`: the flag values the write asked for (undefined = not given).
 * A flag stays true only for the unchanged address it was set for; the operator may set it explicitly.
 */
export function verifiedAfterWrite(by: 'api' | 'operator', current: (Contact & Flags) | undefined, next: Contact, requested: Partial<Flags>): VerifiedOutcome {
  const flags: Flags = { email_verified: false, phone_number_verified: false };
  const errors: FieldError[] = [];
  for (const [address, flag] of PAIRS) {
    const unchanged = current !== undefined && current[address] === next[address];
    const kept = unchanged && current[flag];
    const asked = requested[flag];
    if (next[address] === null) {
      if (asked === true) errors.push({ field: flag, message: `cannot be true without ${address}` });
    } else if (by === 'operator') {
      flags[flag] = asked ?? kept;
    } else if (asked === true && !kept) {
      errors.push({ field: flag, message: 'can be set to true only by an operator, for an address that was verified' });
    } else {
      flags[flag] = asked === undefined ? false : kept && asked;
    }
  }
  return { flags, errors };
}
