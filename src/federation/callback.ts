// The second leg: the browser is back at the provider's callback. Every check that makes the response
// this browser's, from this provider, for this request, before anything is believed:
//   provider  — the callback's provider is the pending request's (per-provider callbacks, mix-up defence);
//   state     — equal to the one kept for this browser (CSRF, injected responses);
//   iss       — RFC 9207: the authorization response's issuer is the provider's (required when it promises it);
//   code      — redeemed with the PKCE verifier (S256) and the same redirect_uri;
//   id_token  — iss, aud, azp, exp, iat and nonce checked by oauth4webapi, its signature with the provider's
//               jwks_uri (jose), Microsoft's multi-tenant iss against the token's own tid;
//   oauth2    — the user document (and GitHub-style e-mails list) read with the access token, then mapped.
// Every upstream call is bounded in time and size and goes through the outbound policy. Nothing here throws:
// the answer is an UpstreamIdentity or a FederationError (errors.ts).
import * as oauth from 'oauth4webapi';
import { jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../clock.js';
import { safeEqual } from '../crypto/random.js';
import { OutboundRefused, type OutboundPolicy } from '../http/outbound/outbound-policy.js';
import type { IdentityProvider } from '../storage/repositories/identity-providers-repository.js';
import { PENDING_UPSTREAM_TTL_MS, type PendingUpstream } from './authorization-request.js';
import { FederationFailure, type FederationError } from './errors.js';
import { MICROSOFT_TENANT_PLACEHOLDER, TENANT_ID } from './presets.js';
import type { UpstreamTokenResponse } from './upstream-tokens.js';
import { mappedClaims, primaryEmail, upstreamIdentity, type UpstreamIdentity } from './upstream-claims.js';
import { upstreamFetch, upstreamJson, DEFAULT_UPSTREAM_LIMITS, type UpstreamLimits } from './upstream-fetch.js';
import { authorizationServer, clientAuthentication, isMultiTenant, upstreamClient } from './upstream-server.js';

export interface FederationDeps {
  clock: Clock;
  /** Where upstream calls may go (Core.outbound): strict in production. */
  outbound: OutboundPolicy;
  /** Remote key sets by jwks_uri (Core.remoteKeySets: bounded, fetched through the same policy). */
  keySets: { forUri(uri: string): JWTVerifyGetKey };
  /** Where client secrets are read from, at use (process.env). */
  env: Readonly<Record<string, string | undefined>>;
  limits?: UpstreamLimits;
}

/**
 * `tokens` only for a provider with store_tokens (--store-tokens): otherwise the token response goes no
 * further than this file, so nothing of it can be written anywhere.
 */
export type UpstreamResult = { ok: true; identity: UpstreamIdentity; tokens?: UpstreamTokenResponse } | { ok: false; error: FederationError };

/** Asymmetric algorithms only: an HS256 id_token would be keyed with the client secret, which we never hold as a key. */
const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The RFC 9207 check: the `iss` response parameter, against the provider's issuer. */
function checkResponseIssuer(provider: IdentityProvider, iss: string | null): void {
  if (iss === null) {
    if (provider.authorizationResponseIss)
      throw new FederationFailure('issuer_mismatch', 'the authorization response has no iss, which the provider promises (RFC 9207)');
    return;
  }
  if (provider.issuer === null) return; // an oauth2 provider that names no issuer: nothing to compare with
  const matches = isMultiTenant(provider)
    ? (() => {
        const [head, tail] = provider.issuer.split(MICROSOFT_TENANT_PLACEHOLDER) as [string, string];
        const tid = iss.startsWith(head) && iss.endsWith(tail) ? iss.slice(head.length, iss.length - tail.length) : '';
        return TENANT_ID.test(tid) && (provider.tenants.length === 0 || provider.tenants.includes(tid));
      })()
    : iss === provider.issuer;
  if (!matches)
    throw new FederationFailure(
      'issuer_mismatch',
      `the authorization response names the issuer ${JSON.stringify(iss.slice(0, 200))}, not ${provider.issuer} (RFC 9207: a mix-up)`,
    );
}

/**
 * oauth4webapi's request options: our fetch, and plain http exactly when the outbound policy allows it (tests'
 * loopback upstreams); oauth4webapi's own https-only rule would otherwise duplicate the policy's.
 */
const httpOptions = (deps: FederationDeps, fetcher: ReturnType<typeof upstreamFetch>) => ({
  [oauth.customFetch]: fetcher,
  [oauth.allowInsecureRequests]: deps.outbound.allowHttp,
});

/** oauth4webapi's and the transport's errors, as our codes. */
function classify(error: unknown): FederationFailure {
  if (error instanceof FederationFailure) return error;
  const cause = (error as { cause?: unknown })?.cause;
  if (error instanceof OutboundRefused || cause instanceof OutboundRefused) {
    const refused = (error instanceof OutboundRefused ? error : cause) as OutboundRefused;
    return new FederationFailure('upstream_unreachable', `${refused.code}: ${refused.message}`);
  }
  if (error instanceof oauth.ResponseBodyError)
    return new FederationFailure('upstream_invalid', `the token endpoint answered ${error.status} ${error.error}`, error.error);
  if (error instanceof oauth.AuthorizationResponseError) return new FederationFailure('upstream_refused', `the upstream answered ${error.error}`, error.error);
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    // A 401 with a challenge (a wrong client secret at the token endpoint: invalid_client).
    const code = error.cause.map((c) => c.parameters.error).find((e) => typeof e === 'string');
    return new FederationFailure('upstream_invalid', `the upstream answered ${error.status}${code ? ` ${code}` : ' with a challenge'}`, code);
  }
  if (error instanceof oauth.OperationProcessingError && error.code === oauth.JWT_CLAIM_COMPARISON) {
    const claim = (cause as { claim?: string } | undefined)?.claim;
    if (claim === 'nonce') return new FederationFailure('nonce_mismatch', 'the id_token nonce is not the one this request sent');
    if (claim === 'iss') return new FederationFailure('issuer_mismatch', 'the id_token iss is not the provider issuer');
    return new FederationFailure('upstream_invalid', `the id_token ${claim ?? 'claim'} is not acceptable`);
  }
  return new FederationFailure('upstream_invalid', (error as Error)?.message ?? String(error));
}

/** The OIDC claims: the validated id_token, its signature checked, filled in from userinfo when it is thin. */
async function oidcClaims(
  provider: IdentityProvider,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  tokens: oauth.TokenEndpointResponse,
  deps: FederationDeps,
  fetcher: ReturnType<typeof upstreamFetch>,
): Promise<Record<string, unknown>> {
  const claims = oauth.getValidatedIdTokenClaims(tokens) as Record<string, unknown> | undefined;
  if (!claims || !tokens.id_token) throw new FederationFailure('upstream_invalid', 'the token response has no id_token');
  if (!provider.jwksUri) throw new FederationFailure('upstream_invalid', 'the provider has no jwks_uri to check the id_token with');
  try {
    await jwtVerify(tokens.id_token, deps.keySets.forUri(provider.jwksUri), {
      algorithms: ID_TOKEN_ALGORITHMS,
      clockTolerance: 30,
      currentDate: new Date(deps.clock.now()),
    });
  } catch (error) {
    if (error instanceof OutboundRefused || (error as { cause?: unknown }).cause instanceof OutboundRefused) throw classify(error);
    throw new FederationFailure('upstream_invalid', `the id_token signature does not verify with ${provider.jwksUri}: ${(error as Error).message}`);
  }
  if (typeof claims.email === 'string' || !provider.userinfoEndpoint) return claims;
  const response = await oauth.userInfoRequest(as, client, tokens.access_token, httpOptions(deps, fetcher));
  // processUserInfoResponse refuses a userinfo `sub` other than the id_token's (OIDC Core 5.3.2).
  const userinfo = (await oauth.processUserInfoResponse(as, client, claims.sub as string, response)) as Record<string, unknown>;
  // How the user signed in (amr, acr) is the id_token's word only (`--trust-mfa` reads it): never userinfo's.
  const { amr: _amr, acr: _acr, ...profile } = userinfo;
  return { ...profile, ...claims };
}

/** The oauth2 claims: the user document, mapped, with a GitHub-style e-mails list when configured. */
async function oauth2Claims(
  provider: IdentityProvider,
  tokens: oauth.TokenEndpointResponse,
  fetcher: ReturnType<typeof upstreamFetch>,
): Promise<Record<string, unknown>> {
  if (!provider.userinfoEndpoint) throw new FederationFailure('upstream_invalid', 'an oauth2 provider needs a userinfo endpoint');
  const bearer = { authorization: `Bearer ${tokens.access_token}` };
  const document = await upstreamJson(fetcher, provider.userinfoEndpoint, bearer).catch((error: unknown) => {
    throw error instanceof OutboundRefused ? error : new FederationFailure('upstream_invalid', `userinfo: ${(error as Error).message}`);
  });
  if (!document || typeof document !== 'object' || Array.isArray(document)) throw new FederationFailure('upstream_invalid', 'userinfo is not a JSON object');
  const claims = mappedClaims(document as Record<string, unknown>, provider.claims);
  if (provider.emailsEndpoint) {
    const list = await upstreamJson(fetcher, provider.emailsEndpoint, bearer).catch((error: unknown) => {
      throw error instanceof OutboundRefused ? error : new FederationFailure('upstream_invalid', `e-mails: ${(error as Error).message}`);
    });
    const primary = primaryEmail(list);
    claims.email = primary?.email;
    claims.email_verified = primary?.verified ?? false;
  } else if (!('email_verified' in provider.claims)) {
    // A plain OAuth 2.0 user document that says nothing about verification asserts nothing.
    claims.email_verified = false;
  }
  return claims;
}

/**
 * Completes the upstream sign-in from the callback's query (or form) parameters. `provider` is the one
 * whose callback was reached; `pending` is what beginUpstreamSignIn returned, as kept for this browser.
 */
export async function completeUpstreamSignIn(
  provider: IdentityProvider,
  pending: PendingUpstream,
  parameters: URLSearchParams,
  deps: FederationDeps,
): Promise<UpstreamResult> {
  try {
    if (!provider.enabled) throw new FederationFailure('provider_unavailable', `identity provider ${provider.slug} is disabled`);
    if (pending.providerId !== provider.id)
      throw new FederationFailure('provider_mismatch', `a response for another provider's request reached ${provider.slug}'s callback`);
    if (deps.clock.now() - pending.createdAt > PENDING_UPSTREAM_TTL_MS) throw new FederationFailure('expired', 'the upstream sign-in took longer than allowed');
    const state = parameters.get('state');
    if (state === null || !safeEqual(state, pending.state))
      throw new FederationFailure('state_mismatch', 'the callback state is not the one this browser sent');
    checkResponseIssuer(provider, parameters.get('iss'));
    const fetcher = upstreamFetch(deps.outbound, deps.limits ?? DEFAULT_UPSTREAM_LIMITS);
    const as = authorizationServer(provider);
    const client = upstreamClient(provider, deps.clock);
    // Our checks are done: oauth4webapi sees the response without iss (checked above) and with its state checked.
    const forLibrary = new URLSearchParams(parameters);
    forLibrary.delete('iss');
    const callback = oauth.validateAuthResponse(as, client, forLibrary, oauth.skipStateCheck);
    const auth = clientAuthentication(provider, deps.env);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      callback,
      pending.redirectUri,
      pending.codeVerifier,
      httpOptions(deps, fetcher),
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: pending.nonce ?? oauth.expectNoNonce,
      requireIdToken: provider.kind === 'oidc',
    });
    const claims = provider.kind === 'oidc' ? await oidcClaims(provider, as, client, tokens, deps, fetcher) : await oauth2Claims(provider, tokens, fetcher);
    const identity = upstreamIdentity(provider, claims);
    if (!identity)
      throw new FederationFailure(
        'missing_subject',
        `${provider.slug} gave no usable subject${provider.kind === 'oauth2' ? ' (check its sub claim mapping)' : ''}`,
      );
    if (!provider.storeTokens) return { ok: true, identity };
    const { access_token, token_type, refresh_token, expires_in, scope } = tokens;
    return { ok: true, identity, tokens: { access_token, token_type, refresh_token, expires_in, scope } };
  } catch (error) {
    return { ok: false, error: classify(error).toValue() };
  }
}
