// Which sessions the account page serves, and which may change the account's second factors.
//   fully signed in   the session used the account's second factor (when it has one), or bound that factor
//                     itself — binding opens the account page to it but never raises its amr, so /authorize
//                     still asks for the factor (docs/security/account-factors.md)
//   fresh proof       the session proved the account within REAUTH_MAX_AGE: its sign-in, or a later
//                     re-authentication (the current password, or a second factor) on /account, or the
//                     password change (which proves the current password). Adding a factor, regenerating
//                     recovery codes and removing a factor need it, so a stolen or forgotten session cookie
//                     cannot plant a factor of its own or take the owner's away.
import { isLoggedIn } from '../interaction/complete.js';
import type { SecondFactors } from '../interaction/mfa/second-factors.js';
import type { BrowserSession } from '../storage/repositories/browser-sessions-repository.js';

export type SignedIn = BrowserSession & { userId: string; authTime: number };

type Factors = Pick<SecondFactors, 'required' | 'sessionProof'>;

export async function fullySignedIn(session: BrowserSession | undefined, factors: Factors): Promise<SignedIn | undefined> {
  if (!isLoggedIn(session)) return undefined;
  if (!(await factors.required(session.userId))) return session;
  const proof = await factors.sessionProof(session.idHash);
  return proof && (proof.amr.includes('mfa') || proof.boundFactor) ? session : undefined;
}

/** The rule lives beside the sign-in, which the flow's own factor set-up shares (interaction/mfa/fresh-proof.ts). */
export { hasFreshProof } from '../interaction/mfa/fresh-proof.js';
