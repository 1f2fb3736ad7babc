// --store-tokens (docs/federation.md): after a federated identity signed in or was linked, the token response
// of that round trip replaces the identity's stored tokens, sealed (src/federation/upstream-tokens.ts). The
// round trip hands over tokens only for a provider with store_tokens, so for any other this does nothing.
import type { UpstreamTokenResponse } from '../../federation/upstream-tokens.js';
import type { FederationFlowDeps } from './federation-flow-deps.js';

/** --store-tokens: the token response of this sign-in replaces the identity's stored tokens (nothing when off). */
export async function keepTokens(
  deps: { federation: Pick<FederationFlowDeps, 'tokens'> },
  providerId: string,
  subject: string,
  tokens: UpstreamTokenResponse | undefined,
): Promise<void> {
  if (tokens) await deps.federation.tokens.keep(deps.federation.tokens.seal({ providerId, subject }, tokens));
}
