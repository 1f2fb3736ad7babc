// What a verified upstream identity means for the local accounts, decided without side effects so that
// every rule is a test of one function (docs/federation.md, "Linking"). The sign-in pipeline acts on the
// decision: signs in, asks for proof of the local account before it links, creates the user, or refuses.
//
// Never linked silently, never on an unverified e-mail on either side: an upstream that lets anyone claim
// an address (or a local account whose address was never confirmed) must not hand over an account
// (keycloak#53041, Microsoft's "nOAuth").
import type { LinkPolicy } from '../storage/repositories/identity-providers-repository.js';
import type { UpstreamIdentity } from './upstream-claims.js';

export interface LocalAccount {
  userId: string;
  email: string | null;
  emailVerified: boolean;
}

export interface LinkingFacts {
  identity: Pick<UpstreamIdentity, 'email' | 'emailVerified'>;
  provider: { provision: boolean; link: LinkPolicy };
  /** The user already linked to (provider, subject), if any. */
  linkedUserId: string | null;
  /** Local accounts whose e-mail equals the upstream's (case-insensitively), if the upstream gave one. */
  sameEmail: readonly LocalAccount[];
}

export type LinkingDecision =
  /** Already linked: a sign-in as that user (one method of the pipeline, amr `fed`). */
  | { action: 'sign-in'; userId: string }
  /** Same verified e-mail on both sides: the user proves the local account (password, passkey or factor), then the link is made. */
  | { action: 'prove-then-link'; userId: string }
  /** A new local user from the upstream claims; its e-mail is verified only if the upstream asserted it. */
  | { action: 'provision'; emailVerified: boolean }
  /** Provisioning is off and nothing links: the page says the account does not exist. */
  | { action: 'refuse'; reason: 'no-account' };

export function decideLinking(facts: LinkingFacts): LinkingDecision {
  if (facts.linkedUserId !== null) return { action: 'sign-in', userId: facts.linkedUserId };
  const { identity, provider } = facts;
  if (provider.link === 'verified-email' && identity.email !== null && identity.emailVerified) {
    const email = identity.email.toLowerCase();
    const owners = facts.sameEmail.filter((a) => a.emailVerified && a.email !== null && a.email.toLowerCase() === email);
    // Two local accounts with one verified address is an inconsistency no link should pick a side in.
    if (owners.length === 1) return { action: 'prove-then-link', userId: owners[0]!.userId };
  }
  // Not linkable (an unverified address on either side, linking off, no such account): a separate account
  // or none. A pre-registered, unconfirmed local account with the victim's address gains nothing either way.
  if (provider.provision) return { action: 'provision', emailVerified: identity.email !== null && identity.emailVerified };
  return { action: 'refuse', reason: 'no-account' };
}
