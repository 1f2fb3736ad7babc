// Which upstream providers a client's login page offers (clients.identity_providers: null = every enabled
// one), and the two ways the choice is skipped: an e-mail typed in the username field whose domain a
// provider claims (home-realm discovery), and a relying party's `login_hint=idp:SLUG` (docs/federation.md).
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { IdentityProvider } from '../../storage/repositories/identity-providers-repository.js';
import type { FederationFlowDeps } from './federation-flow-deps.js';

/** More providers than a login page can sensibly show is a configuration no one has. */
export const MAX_OFFERED = 50;

/** The documented authorization parameter: `login_hint=idp:SLUG` goes straight to that provider. */
export const IDP_LOGIN_HINT_PREFIX = 'idp:';

export async function offeredProviders(client: Pick<Client, 'identityProviders'>, deps: Pick<FederationFlowDeps, 'providers'>): Promise<IdentityProvider[]> {
  const enabled = await deps.providers.listEnabled(MAX_OFFERED);
  const allowed = client.identityProviders;
  return allowed === null ? enabled : enabled.filter((p) => allowed.includes(p.slug));
}

/** The provider claiming the domain of `typed`, when it is an e-mail address (domains are stored in lower case). */
export function providerForEmail(providers: readonly IdentityProvider[], typed: string): IdentityProvider | undefined {
  const at = typed.lastIndexOf('@');
  if (at <= 0 || at === typed.length - 1) return undefined;
  const domain = typed
    .slice(at + 1)
    .trim()
    .toLowerCase();
  return providers.find((p) => p.domains.includes(domain));
}

/** `login_hint=idp:SLUG`, when SLUG is offered to this client; any other hint is an ordinary username hint. */
export function providerForLoginHint(providers: readonly IdentityProvider[], hint: string | undefined): IdentityProvider | undefined {
  if (!hint?.startsWith(IDP_LOGIN_HINT_PREFIX)) return undefined;
  const slug = hint.slice(IDP_LOGIN_HINT_PREFIX.length);
  return providers.find((p) => p.slug === slug);
}
