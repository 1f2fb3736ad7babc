// Step-up (docs/second-factors.md): a signed-in session that lacks a second factor the flow needs — the
// account has one, the client requires one, or the request asks for one (acr.ts) — is not sent through the
// password again: the interaction only asks for the second factor. An account without any factor that
// meets a flow demanding one gets a page saying where to set one up, never a silent pass.
import { sha256 } from '../../crypto/random.js';
import { PageError } from '../../http/errors.js';
import type { AuthorizationRequest } from '../../oauth/authorize/authorization-request.js';
import type { Client } from '../../storage/clients-repository.js';
import { secondFactorDemanded } from './acr.js';
import { boundToInteraction, type SecondFactors } from './second-factors.js';

/** Whether this signed-in session must complete a second factor before the flow goes on. */
export async function needsStepUp(
  session: { idHash: string; userId: string },
  request: AuthorizationRequest,
  client: Pick<Client, 'requireMfa'>,
  factors: Pick<SecondFactors, 'required' | 'sessionAmr'>,
): Promise<boolean> {
  if (!secondFactorDemanded(request, client) && !(await factors.required(session.userId))) return false;
  return !((await factors.sessionAmr(session.idHash)) ?? []).includes('mfa');
}

/** After the interaction for a step-up was created: its page asks this user's second factor (when there is one). */
export async function awaitStepUp(sessionHash: string, userId: string, interactionId: string, factors: Pick<SecondFactors, 'required' | 'awaitSecondFactor'>): Promise<void> {
  if (await factors.required(userId)) await factors.awaitSecondFactor(sessionHash, userId, boundToInteraction(sha256(interactionId)));
}

export const secondFactorMissing = (): PageError =>
  new PageError(
    'Two-step verification required',
    'This application requires two-step verification. Set up an authenticator app on your account page, then return to the application.',
    403,
    {},
    { back: { href: '/account', label: 'Go to your account' }, log: { reason: 'second_factor_not_enrolled' } },
  );
