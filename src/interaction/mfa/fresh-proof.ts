// The re-authentication rule (docs/security/account-factors.md, S1): adding, regenerating or removing a
// second factor needs a proof of the account no older than REAUTH_MAX_AGE — the session's sign-in, or a
// later proof recorded on it (a re-authentication, the password change). Shared by the account page and
// the set-up offered inside an authorization flow (enroll-in-flow.ts), so both bind factors by one rule.
import { epochSeconds, type Clock } from '../../clock.js';
import type { BrowserSession } from '../../storage/repositories/browser-sessions-repository.js';
import type { SecondFactors } from './second-factors.js';

export async function hasFreshProof(
  session: BrowserSession & { authTime: number },
  deps: { secondFactors: Pick<SecondFactors, 'sessionProof'>; clock: Clock; reauthMaxAge: number },
): Promise<boolean> {
  const proof = await deps.secondFactors.sessionProof(session.idHash);
  const provedAt = proof?.provedAt ? Math.floor(proof.provedAt.getTime() / 1000) : 0;
  return epochSeconds(deps.clock) - Math.max(session.authTime, provedAt) <= deps.reauthMaxAge;
}
