// The steps both provider callbacks take once the upstream has answered for an identity that signs in — the
// authorization flow's (federation-callback.ts) and /account's own (account-sign-in-callback.ts) — so the two
// cannot drift apart:
//   linked    → the identity's last use and e-mail are touched; a provider trusted for the second factor
//               (--trust-mfa) whose id_token says the user passed several factors satisfies the account's own
//               (amr `fed mfa`);
//   provision → a new account from the upstream claims (provision.ts), amr `fed`.
// Either way the upstream's tokens (--store-tokens) are only sealed here, not written: they travel with what was
// proved (and wait with the account's second factor, if it is asked) and the sign-in pipeline writes them when
// the sign-in completes (sign-in-pipeline.ts, completeSignIn). A sign-in abandoned before that stores none.
import { upstreamAssertsMfa } from '../../federation/trusted-mfa.js';
import type { IdentityProvider } from '../../storage/repositories/identity-providers-repository.js';
import type { FlowDeps } from '../flow-deps.js';
import type { FederationOutcome } from '../sign-in/federation-method.js';
import type { Proved } from '../sign-in/sign-in-pipeline.js';
import { federationFailure } from './federation-pages.js';
import { provisionUser } from './provision.js';

/** A verified upstream answer: a linked identity, or an unlinked one (its decision says what follows). */
type Verified = Exclude<FederationOutcome, { ok: false }>;

export interface UpstreamSignIn {
  proved: Proved;
  /** The provider is trusted for the second factor and said so: the account's own is not asked. */
  secondFactorDone: boolean;
}

/**
 * A linked identity or one to provision. An identity whose local account must be proved first (prove-then-link)
 * is each caller's own road, taken before this: it is refused here.
 */
export async function signInFromUpstream(
  outcome: Verified,
  provider: IdentityProvider,
  /** `back`: where the page of a lost provisioning race sends the user. No client on /account. */
  at: { traceId: string; clientId?: string | undefined; back: string },
  deps: FlowDeps,
): Promise<UpstreamSignIn> {
  const { identity } = outcome;
  const upstreamTokens = outcome.tokens && deps.federation.tokens.seal({ providerId: provider.id, subject: identity.subject }, outcome.tokens);
  if (outcome.ok === true) {
    await deps.federation.identities.touch(provider.id, identity.subject, identity.email, new Date(deps.clock.now()));
    const secondFactorDone = provider.trustMfa && provider.kind === 'oidc' && upstreamAssertsMfa(identity.claims);
    return { proved: { userId: outcome.userId, amr: secondFactorDone ? [...outcome.amr, 'mfa'] : outcome.amr, upstreamTokens }, secondFactorDone };
  }
  if (outcome.decision.action !== 'provision')
    throw federationFailure('link_conflict', provider.name, at.back, `${provider.slug} subject needs a proof of the local account before a link`);
  const user = await provisionUser(
    identity,
    outcome.decision.emailVerified,
    { traceId: at.traceId, clientId: at.clientId },
    { federation: deps.federation, audit: deps.audit, clock: deps.clock },
  );
  if (!user) throw federationFailure('link_conflict', provider.name, at.back, `provisioning for ${provider.slug} lost a race or found no username`);
  return { proved: { userId: user.id, amr: ['fed'], upstreamTokens }, secondFactorDone: false };
}
