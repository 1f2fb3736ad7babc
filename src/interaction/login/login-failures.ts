// Every login attempt is charged to its failure budget before the password is verified, and refunded when it
// succeeds (rate-limited-logins.ts implements the charge with the shared rate limits, docs/rate-limits.md).
import type { Reservation } from '../../http/rate-limit.js';

export interface LoginAttempt {
  /** The account the username names, if any: unknown names are charged to the address alone. */
  userId: string | undefined;
  ip: string;
}

export interface LoginGuard {
  /** Charges one attempt; throws (429) when its budget is used up, so the password is never looked at. */
  charge(attempt: LoginAttempt): Promise<Reservation>;
}
