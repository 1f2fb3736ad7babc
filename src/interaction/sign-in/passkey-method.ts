// The passkey method: a WebAuthn assertion, as the second factor of `pendingUser` or passwordless (any
// discoverable passkey). Charged before verification to the login failure budget of the passkey's claimed
// owner (or of the address alone), refunded on success. Not charged to the account-wide second-factor
// budget: a passwordless assertion comes from anyone (charging its claimed owner would let strangers
// lock accounts), and an assertion is not guessable.
import type { LoginGuard } from '../login/login-failures.js';
import type { PasskeyCeremonies } from '../passkeys/passkeys.js';
import type { MethodOutcome } from './sign-in-method.js';

export interface PasskeyAttempt {
  /** The flow the challenge is bound to (an interaction, or the account page). */
  boundTo: string;
  response: unknown;
  /** The user whose second factor is awaited; undefined: passwordless. */
  pendingUser: string | undefined;
  ip: string;
}

export function passkeyMethod(deps: { loginGuard: LoginGuard; passkeys: Pick<PasskeyCeremonies, 'claimedUser' | 'authenticate'> }) {
  return async ({ boundTo, response, pendingUser, ip }: PasskeyAttempt): Promise<MethodOutcome> => {
    const claimed = pendingUser ?? (await deps.passkeys.claimedUser(response));
    const reservation = await deps.loginGuard.charge({ userId: claimed, ip });
    const outcome = await deps.passkeys.authenticate(boundTo, response, pendingUser);
    if (!outcome.ok) return { ok: false, reason: outcome.reason, userId: claimed, detail: outcome.detail };
    await reservation.refund();
    return outcome;
  };
}
