// Step-up (docs/second-factors.md): a signed-in session that lacks a second factor the flow needs — the
// account has one, the client requires one, or the request asks for one (acr.ts) — is not sent through the
// password again: the interaction only asks for the second factor. An account without any factor that
// meets a flow demanding one is offered to set one up inside the flow (set-up-in-flow.ts), never a silent
// pass and never a dead end.
import { sha256 } from '../../crypto/random.js';
import { OAuthError } from '../../http/errors.js';
import type { AuthorizationRequest } from '../../oauth/authorize/authorization-request.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
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
export async function awaitStepUp(
  sessionHash: string,
  userId: string,
  interactionId: string,
  factors: Pick<SecondFactors, 'required' | 'awaitSecondFactor'>,
): Promise<void> {
  if (await factors.required(userId)) await factors.awaitSecondFactor(sessionHash, userId, boundToInteraction(sha256(interactionId)));
}

/**
 * What a signed-in session still lacks for this flow: nothing; using the account's second factor (step-up);
 * or setting one up first, because the flow demands one and the account has none (set-up-in-flow.ts).
 */
export type SecondFactorShortfall = 'none' | 'use' | 'set_up';

export async function secondFactorShortfall(
  session: { idHash: string; userId: string },
  request: AuthorizationRequest,
  client: Pick<Client, 'requireMfa'>,
  factors: Pick<SecondFactors, 'required' | 'sessionAmr'>,
): Promise<SecondFactorShortfall> {
  if (!(await needsStepUp(session, request, client, factors))) return 'none';
  return (await factors.required(session.userId)) ? 'use' : 'set_up';
}

/** The answer to the client when the flow cannot get a factor the account lacks (declined, or prompt=none). */
export const unmetRequirements = (): OAuthError =>
  new OAuthError('unmet_authentication_requirements', 'The application requires two-step verification, which the account does not have.');
