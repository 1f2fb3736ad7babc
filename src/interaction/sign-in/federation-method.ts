// The federation method: the proof is an upstream provider's answer at its callback (src/federation/:
// state, iss, PKCE, id_token or the user document), and the account it proves is the one the federated
// identity (provider, upstream sub) is linked to. Nothing to charge: the upstream did the checking, and a
// callback is only accepted once, for the pending request of this browser's interaction. An identity not
// linked yet is not a sign-in: the answer carries the linking decision (federation/linking.ts) for the
// caller to act on — prove the local account, create one, or refuse.
import { completeUpstreamSignIn, type FederationDeps } from '../../federation/callback.js';
import type { PendingUpstream } from '../../federation/authorization-request.js';
import type { FederationErrorCode } from '../../federation/errors.js';
import { decideLinking, type LinkingDecision } from '../../federation/linking.js';
import type { UpstreamIdentity } from '../../federation/upstream-claims.js';
import type { UpstreamTokenResponse } from '../../federation/upstream-tokens.js';
import type { FederatedIdentitiesRepository } from '../../storage/repositories/federated-identities-repository.js';
import type { IdentityProvider } from '../../storage/repositories/identity-providers-repository.js';
import type { UpstreamSignInsRepository } from '../../storage/repositories/upstream-sign-ins-repository.js';

/** RFC 8176: "fed", federated authentication. */
export const AMR_FEDERATED = ['fed'] as const;

export interface FederationAttempt {
  provider: IdentityProvider;
  pending: PendingUpstream;
  /** The callback's query parameters. */
  parameters: URLSearchParams;
}

export type FederationOutcome =
  | { ok: true; userId: string; amr: string[]; identity: UpstreamIdentity; tokens?: UpstreamTokenResponse | undefined }
  | { ok: false; reason: FederationErrorCode | 'no_account'; detail?: string | undefined; userId?: string | undefined }
  /** Verified upstream, not linked: the caller asks for proof of the local account, or creates one. */
  | {
      ok: 'unlinked';
      identity: UpstreamIdentity;
      decision: Extract<LinkingDecision, { action: 'prove-then-link' | 'provision' }>;
      tokens?: UpstreamTokenResponse | undefined;
    };

export interface FederationMethodDeps {
  federation: FederationDeps;
  federatedIdentities: Pick<FederatedIdentitiesRepository, 'find'>;
  upstreamSignIns: Pick<UpstreamSignInsRepository, 'accountsWithEmail'>;
}

export function federationMethod(deps: FederationMethodDeps) {
  return async ({ provider, pending, parameters }: FederationAttempt): Promise<FederationOutcome> => {
    const result = await completeUpstreamSignIn(provider, pending, parameters, deps.federation);
    if (!result.ok)
      return {
        ok: false,
        reason: result.error.code,
        detail: result.error.upstreamError ? `${result.error.detail} (${result.error.upstreamError})` : result.error.detail,
      };
    const { identity, tokens } = result;
    const linked = await deps.federatedIdentities.find(provider.id, identity.subject);
    const sameEmail = identity.email ? await deps.upstreamSignIns.accountsWithEmail(identity.email) : [];
    const decision = decideLinking({ identity, provider, linkedUserId: linked?.userId ?? null, sameEmail });
    switch (decision.action) {
      case 'sign-in':
        return { ok: true, userId: decision.userId, amr: [...AMR_FEDERATED], identity, tokens };
      case 'refuse':
        return { ok: false, reason: 'no_account', detail: `no local account for ${provider.slug} subject, and provisioning is off` };
      default:
        return { ok: 'unlinked', identity, decision, tokens };
    }
  };
}
