// What the federated sign-in needs beyond the rest of the flow (FlowDeps.federation), built once in
// src/services.ts.
import type { FederationDeps } from '../../federation/callback.js';
import type { UpstreamTokenKeeper } from '../../federation/upstream-tokens.js';
import type { AccountLinkRequestsRepository } from '../../storage/repositories/account-link-requests-repository.js';
import type { FederatedIdentitiesRepository } from '../../storage/repositories/federated-identities-repository.js';
import type { IdentityProvidersRepository } from '../../storage/repositories/identity-providers-repository.js';
import type { UpstreamSignInsRepository } from '../../storage/repositories/upstream-sign-ins-repository.js';
import type { UsersRepository } from '../../storage/repositories/users-repository.js';

export interface FederationFlowDeps {
  providers: Pick<IdentityProvidersRepository, 'find' | 'listEnabled'>;
  identities: FederatedIdentitiesRepository;
  /** The upstream leg of each interaction (pending request, identity awaiting proof). */
  legs: UpstreamSignInsRepository;
  /** The pending request of a provider being linked from /account, on the signed-in browser session. */
  accountLinks: AccountLinkRequestsRepository;
  /** The upstream round trip itself (state, iss, PKCE, tokens), for a link from /account, which is not a sign-in. */
  upstream: FederationDeps;
  /** A provider with --store-tokens: the upstream's tokens, sealed, kept per federated identity. */
  tokens: UpstreamTokenKeeper;
  /** Finding the account to prove, creating a provisioned one. */
  users: Pick<UsersRepository, 'findById' | 'create' | 'delete'>;
}
