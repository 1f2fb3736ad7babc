// The first leg of an upstream sign-in: the authorization request with state, nonce (OIDC) and PKCE S256,
// sent to the provider's per-provider callback. What the callback will need is returned as a
// `PendingUpstream` that the caller keeps bound to this browser (e.g. in the interaction), never in a place
// another browser could present: the state check only proves "same browser" if the state is found there.
import * as oauth from 'oauth4webapi';
import type { Clock } from '../clock.js';
import type { IdentityProvider } from '../storage/repositories/identity-providers-repository.js';
import type { PendingUpstream } from '../storage/repositories/upstream-sign-ins-repository.js';
import { federationRedirectUri } from './callback-uri.js';

// What the callback needs is stored with the interaction, so its shape is declared where it is stored.
export type { PendingUpstream };

/** How long a user may take at the upstream (consent screens, a forgotten password, a second factor there). */
export const PENDING_UPSTREAM_TTL_MS = 10 * 60 * 1000;

export interface UpstreamAuthorizationRequest {
  /** Where to send the browser (303). */
  url: string;
  pending: PendingUpstream;
}

/** `hints` are passed on when given: login_hint (the e-mail typed for home-realm discovery), prompt. */
export async function beginUpstreamSignIn(
  provider: IdentityProvider,
  deps: { issuer: string; clock: Clock },
  hints: { loginHint?: string; prompt?: string } = {},
): Promise<UpstreamAuthorizationRequest> {
  const state = oauth.generateRandomState();
  const nonce = provider.kind === 'oidc' ? oauth.generateRandomNonce() : null;
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const redirectUri = federationRedirectUri(deps.issuer, provider.slug);
  const url = new URL(provider.authorizationEndpoint);
  const parameters: Record<string, string> = {
    response_type: 'code',
    client_id: provider.clientId,
    redirect_uri: redirectUri,
    scope: provider.scopes.join(' '),
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...(nonce ? { nonce } : {}),
    ...(hints.loginHint ? { login_hint: hints.loginHint } : {}),
    ...(hints.prompt ? { prompt: hints.prompt } : {}),
  };
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return { url: url.href, pending: { providerId: provider.id, state, nonce, codeVerifier, redirectUri, createdAt: deps.clock.now() } };
}
