// What the authorization server needs, declared by the authorization server: its endpoints and the token
// machinery take a `Pick<OAuthDeps, …>` of what they use, and the composition root (src/services.ts) builds
// one object that satisfies it. Nothing here knows how any of it is built (docs/design.md, "Composition root").
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { KeyService } from '../crypto/keys.js';
import type { Brand } from '../http/brand.js';
import type { OutboundPolicy } from '../http/outbound/outbound-policy.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { Store } from '../storage/store.js';
import type { ClientsRepository } from '../storage/repositories/clients-repository.js';
import type { DeviceAuthorizationsRepository } from '../storage/repositories/device-authorizations-repository.js';
import type { DelegationsRepository } from '../storage/repositories/delegations-repository.js';
import type { GrantsRepository } from '../storage/repositories/grants-repository.js';
import type { InitialAccessTokensRepository } from '../storage/repositories/initial-access-tokens-repository.js';
import type { OperatorRolesRepository } from '../storage/repositories/operator-roles-repository.js';
import type { RevocationsRepository } from '../storage/repositories/revocations-repository.js';
import type { UsersRepository } from '../storage/repositories/users-repository.js';
import type { DpopDeps } from '../tokens/dpop/proof.js';
import type { BeginAuthorization, Respond } from './authorize/authorize-route.js';
import type { ClientAuthDeps } from './client-auth/index.js';
import type { RemoteKeySets } from './client-auth/remote-key-sets.js';
import type { ClientLookup } from './clients/client-cache.js';
import type { AuthorizationCodeIssuer, AuthorizationCodeRedeemer } from './codes/index.js';
import type { OriginIndex } from './cors/origin-index.js';
import type { Grant } from './grant-types/grant-type.js';
import type { AccessTokenIssuer } from './issued-tokens/access-tokens.js';
import type { AuthenticationLookup } from './issued-tokens/authentication-context.js';
import type { BearerVerifier } from './issued-tokens/bearer-access-token.js';
import type { IdTokenIssuer } from './issued-tokens/id-token.js';
import type { RefreshTokens } from './refresh/index.js';
import type { ResourceRegistry } from './resources/registry.js';
import type { TokenTypeHandler } from './token-type-handler.js';
import type { OAuthMetrics } from './oauth-metrics.js';

export interface OAuthDeps {
  readonly config: Config;
  readonly clock: Clock;
  readonly store: Store;
  readonly keys: KeyService;
  readonly rateLimits: RateLimits;
  readonly brand: Brand;
  readonly audit: AuditSink;
  /** Client registrations as read by /token, /authorize and the login pages (CLIENT_CACHE_TTL). */
  readonly clients: ClientLookup;
  /** Every origin some client may call the token endpoints from (CORS preflights), same freshness as `clients`. */
  readonly corsOrigins: OriginIndex;
  /** Where requests steered by clients (jwks_uri) may go; strict outside tests. */
  readonly outbound: OutboundPolicy;
  /** Key sets of clients registered with a jwks_uri (bounded, per app). */
  readonly remoteKeySets: RemoteKeySets;
  /** Registered resource servers and their scopes (same freshness as `clients`). */
  readonly resources: ResourceRegistry;
  readonly users: UsersRepository;
  /** The uncached client registrations (RFC 7591/7592 writes); reads go through `clients`. */
  readonly clientRegistrations: ClientsRepository;
  readonly initialAccessTokens: InitialAccessTokensRepository;
  readonly revocations: RevocationsRepository;
  readonly grantRecords: GrantsRepository;
  readonly accessTokens: AccessTokenIssuer;
  readonly idTokens: IdTokenIssuer;
  /** Our own access tokens presented to /userinfo, /revoke and /introspect. */
  readonly bearerTokens: BearerVerifier;
  readonly codes: AuthorizationCodeIssuer & AuthorizationCodeRedeemer;
  readonly refreshTokens: RefreshTokens;
  /** RFC 8628 device authorizations: started at /device_authorization, decided on /device, redeemed at /token. */
  readonly deviceAuthorizations: DeviceAuthorizationsRepository;
  /** RFC 8693 delegations: what token exchange records, and what /account lists and revokes. */
  readonly delegations: DelegationsRepository;
  /** The grant registry, built: what /token serves and discovery advertises. */
  readonly grantTypes: readonly Grant[];
  /** The token types /revoke and /introspect understand. */
  readonly tokenTypes: readonly TokenTypeHandler[];
  /** One nonce key and one replay store for every DPoP check (token endpoint, /userinfo, the API). */
  readonly dpop: DpopDeps;
  /** Client authentication as /token uses it; /revoke and /introspect narrow `methods`. */
  readonly clientAuth: ClientAuthDeps;
  /** Tokens issued, refusals, refresh-token reuse, sign-ins (src/oauth/oauth-metrics.ts); registered by the app. */
  readonly oauthMetrics: OAuthMetrics;
  /** amr/acr of the sign-in an authorization code came from. */
  readonly authentications: AuthenticationLookup;
  /** Operators of the admin console (gatehouse users grant-admin): read at the console's code exchange. */
  readonly operatorRoles: OperatorRolesRepository;
  /** What /authorize hands a valid request to: the interaction flow, which the root plugs in here. */
  readonly authorization: { readonly begin: BeginAuthorization; readonly respond: Respond };
}
