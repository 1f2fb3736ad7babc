// The whole check of one request, framework-free: `verifyRequest({ method, url, headers })` answers
// `{ ok: true, identity }` or a Refusal carrying the status and `WWW-Authenticate` to send. Used by the
// Fastify plugin, by `gatehouse protect`, and (through `authenticateRequest`) by Gatehouse's own /v1.
//
//   1. where the token travels (RFC 6750 §2): the Authorization header only, Bearer or DPoP scheme; a token in
//      the query is refused (it leaks into logs), and so is a token in two places;
//   2. the token itself (access-token.ts): signature and kid from the issuer's JWKS, pinned algorithm, iss, aud
//      = this resource, typ at+jwt, lifetime; then revocation (authenticator.ts);
//   3. possession (RFC 9449 §7): a cnf.jkt-bound token only with the DPoP scheme and a proof of that key for
//      this very request; an unbound one only as Bearer;
//   4. the route's requirement (routes.ts): every scope it names (403 insufficient_scope), and the acr it
//      demands (401 insufficient_user_authentication with acr_values, RFC 9470).
import { accessTokenVerifier, type AccessTokenClaims } from './access-token.js';
import { bearerAuthenticator, DEFAULT_REVOCATION_RECHECK_MS, type Authenticator, type RevocationChecker } from './authenticator.js';
import {
  ambiguousPathRefusal,
  bearerRefusal,
  dpopRefusal,
  insufficientScopeRefusal,
  methodOverrideRefusal,
  missingTokenRefusal,
  routeConflictRefusal,
  stepUpRefusal,
  type ChallengeContext,
  type Refusal,
} from './challenge.js';
import { systemClock, type Clock } from './clock.js';
import { dpopNonces, type DpopNonces } from './dpop/nonce.js';
import { authorizationCredentials, possessionFailure, type PresentedToken } from './dpop/possession.js';
import { DPOP_ALGS, memoryProofReplay, type ProofReplayStore } from './dpop/proof.js';
import type { Identity } from './identity.js';
import { remoteKeySource, type KeySource } from './key-source.js';
import { overridingMethods } from './method-override.js';
import { isAmbiguous, parseRoute, requestTarget, routeRequirement, type RequestTarget, type RouteRequirement, type RouteRule } from './routes.js';
import { randomBytes } from 'node:crypto';

/** Node's IncomingHttpHeaders, a plain record, or a fetch Headers (Hono, the MCP SDK's web-standard transport). */
export type RequestHeaders = Record<string, string | string[] | undefined> | { get(name: string): string | null };

export interface RequestToVerify {
  method: string;
  /** The request target: a path with query (`/notes?x=1`) or an absolute URL. */
  url: string;
  headers: RequestHeaders;
  /**
   * `url` already parsed with requestTarget by a caller that then serves the normalised path (a proxy forwarding
   * it); `url` is then not read again. Without it, `.`, `..` and empty segments are refused (400).
   */
  target?: RequestTarget;
}

export type Verification = { ok: true; identity: Identity; claims: AccessTokenClaims; requirement: RouteRequirement } | Refusal;

// Bounded so a huge header costs nothing to reject.
const MAX_TOKEN_LENGTH = 8192;

export interface ResourceServerOptions {
  /** The authorization server's issuer identifier (Gatehouse's ISSUER). */
  issuer: string;
  /** This resource's identifier: the `aud` its tokens carry (RFC 8707). */
  resource: string;
  /** Where the verification keys come from: a key source, or the JWKS URL (default `{issuer}/.well-known/jwks.json`, Gatehouse's jwks_uri). */
  keySource?: KeySource;
  jwksUrl?: string;
  /** The routes and what they demand: rules (or their `METHOD PATH=SCOPES` text). */
  routes?: readonly (RouteRule | string)[] | (() => readonly RouteRule[]);
  /** Revocation as the resource knows it; without one a token is good until it expires. */
  revocations?: RevocationChecker;
  /** How stale a cached token's revocation status may be when the checker cannot vouch (ms). */
  revocationRecheckMs?: number;
  /** The URL prefix clients call this resource by; a DPoP proof's htu is this plus the request path. Default: the resource's origin. */
  publicBaseUrl?: string;
  /** RFC 9728: the metadata document's URL, named in every 401. Default: derived from `resource` (§3.1). */
  resourceMetadataUrl?: string | false;
  /** Accepted access-token algorithms (default ES256, what Gatehouse signs with). */
  algorithms?: readonly string[];
  clockSkewSeconds?: number;
  /** Gatehouse's ACCESS_TOKEN_TTL (default 3600): the longest lifetime a token may claim. */
  maxTokenAgeSeconds?: number;
  dpop?: { replay?: ProofReplayStore; nonces?: DpopNonces; requireNonce?: boolean };
  clock?: Clock;
  /** Scopes and other fields of the metadata document (RFC 9728 §2). */
  metadata?: { scopesSupported?: readonly string[]; resourceName?: string; resourceDocumentation?: string };
}

export interface ResourceServer {
  readonly resource: string;
  /** Every check, the route's requirement included. */
  verifyRequest(request: RequestToVerify): Promise<Verification>;
  /** Steps 1–3 (token, revocation, possession) without a route: for a framework that checks scopes per route itself. */
  authenticateRequest(request: RequestToVerify): Promise<{ ok: true; identity: Identity; claims: AccessTokenClaims } | Refusal>;
  /** Step 4 alone, for an identity already authenticated. */
  checkRequirement(identity: Identity, requirement: RouteRequirement): Refusal | undefined;
  /** The requirement of a method and normalised path. */
  requirementOf(method: string, path: string): RouteRequirement;
  /** RFC 9728 §3.1: the metadata document's path on this server, and the document. */
  readonly metadataPath: string;
  metadata(): Record<string, unknown>;
  readonly keySource: KeySource;
  readonly authenticator: Authenticator;
}

export function headerOf(headers: RequestHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** RFC 9728 §3.1: `/.well-known/oauth-protected-resource` followed by the resource's path (none for a bare origin). */
export function metadataPathOf(resource: string): string {
  const path = new URL(resource).pathname;
  return `/.well-known/oauth-protected-resource${path === '/' ? '' : path}`;
}

export function resourceServer(options: ResourceServerOptions): ResourceServer {
  const clock = options.clock ?? systemClock;
  const resourceUrl = new URL(options.resource);
  const metadataPath = metadataPathOf(options.resource);
  const resourceMetadata = options.resourceMetadataUrl === false ? undefined : (options.resourceMetadataUrl ?? `${resourceUrl.origin}${metadataPath}`);
  const context: ChallengeContext = { resourceMetadata };
  const publicBaseUrl = (options.publicBaseUrl ?? resourceUrl.origin).replace(/\/$/, '');
  const keySource = options.keySource ?? remoteKeySource(options.jwksUrl ?? `${options.issuer.replace(/\/$/, '')}/.well-known/jwks.json`);
  const verifier = accessTokenVerifier({
    keySource,
    clock,
    issuer: options.issuer,
    audience: options.resource,
    clockSkewSeconds: options.clockSkewSeconds ?? 30,
    maxTokenAgeSeconds: options.maxTokenAgeSeconds ?? 3600,
    ...(options.algorithms ? { algorithms: options.algorithms } : {}),
  });
  const authenticator = bearerAuthenticator({
    verifier,
    keySource,
    revocations: options.revocations,
    clock,
    recheckMs: options.revocationRecheckMs ?? DEFAULT_REVOCATION_RECHECK_MS,
    challenge: context,
  });
  const dpop = {
    clock,
    clockSkewSeconds: options.clockSkewSeconds ?? 30,
    proofs: options.dpop?.replay ?? memoryProofReplay(clock),
    nonces: options.dpop?.nonces ?? dpopNonces(randomBytes(32), clock),
    requireNonce: options.dpop?.requireNonce ?? false,
  };
  const fixedRules = typeof options.routes === 'function' ? undefined : (options.routes ?? []).map((r) => (typeof r === 'string' ? parseRoute(r) : r));
  const rules = typeof options.routes === 'function' ? options.routes : () => fixedRules!;

  function presented(request: RequestToVerify, search: string): PresentedToken | Refusal {
    const authorization = headerOf(request.headers, 'authorization');
    const inQuery = search.length > 1 && new URLSearchParams(search).has('access_token');
    if (authorization !== undefined && inQuery)
      return bearerRefusal('invalid_request', 'An access token may be sent in one place only: the Authorization header.', 'token_in_query', context);
    const credentials = authorizationCredentials(authorization);
    if (credentials === 'absent') return missingTokenRefusal(context, inQuery);
    if (credentials === 'malformed' || credentials.token.length > MAX_TOKEN_LENGTH)
      return bearerRefusal('invalid_token', 'The access token is malformed.', 'malformed', context);
    return credentials;
  }

  /** Steps 1–3 for a path (the DPoP proof's htu is the public base URL plus it) and a query (`?…` or ''). */
  async function authenticate(request: RequestToVerify, path: string, search: string) {
    const token = presented(request, search);
    if ('ok' in token) return token;
    const authentication = await authenticator.authenticate(token.token);
    if (!authentication.ok) return authentication;
    const failure = await possessionFailure(
      { ...token, method: request.method.toUpperCase(), url: `${publicBaseUrl}${path}`, dpopHeader: headerOf(request.headers, 'dpop') },
      authentication.identity.boundKey,
      dpop,
      authentication.identity.clientId,
    );
    return failure ? dpopRefusal(failure, context) : authentication;
  }

  async function authenticateRequest(request: RequestToVerify) {
    const url = new URL(request.url, 'http://resource.invalid');
    return authenticate(request, url.pathname, url.search);
  }

  function checkRequirement(identity: Identity, requirement: RouteRequirement): Refusal | undefined {
    if (!requirement.scopes.every((s) => identity.scopes.has(s)))
      return insufficientScopeRefusal(requirement.scopes, `This operation requires the scope: ${requirement.scopes.join(' ')}.`, context);
    if (requirement.acrConflict) return routeConflictRefusal(context);
    if (requirement.acr.length > 0 && (identity.acr === undefined || !requirement.acr.includes(identity.acr))) return stepUpRefusal(requirement.acr, context);
    return undefined;
  }

  const requirementOf = (method: string, path: string) => routeRequirement(rules(), method, path);

  return {
    resource: options.resource,
    metadataPath,
    keySource,
    authenticator,
    authenticateRequest,
    checkRequirement,
    requirementOf,
    async verifyRequest(request) {
      // Parsed once: the path the rules see is the path the proof names (and the one a proxy forwards). Without a
      // target the caller is in process and routes the raw url itself: a path the rules would see resolved
      // (`/files/secret/../x` as `/files/x`) is refused rather than checked as another path than the one served.
      const target = request.target ?? requestTarget(request.url, { routedAsSent: true });
      if (isAmbiguous(target)) return ambiguousPathRefusal(target.description);
      // An upstream honouring a method override runs the method it names: that method's rule applies too.
      const overrides = overridingMethods((name) => headerOf(request.headers, name), target.search);
      if (!Array.isArray(overrides)) return methodOverrideRefusal(overrides.description);
      const authentication = await authenticate(request, target.path, target.search);
      if (!authentication.ok) return authentication;
      const requirement =
        overrides.length === 0 ? requirementOf(request.method, target.path) : routeRequirement(rules(), [request.method, ...overrides], target.path);
      return checkRequirement(authentication.identity, requirement) ?? { ...authentication, requirement };
    },
    metadata() {
      const scopes = options.metadata?.scopesSupported ?? [...new Set(rules().flatMap((r) => r.scopes))];
      return {
        resource: options.resource,
        authorization_servers: [options.issuer],
        ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
        bearer_methods_supported: ['header'],
        dpop_signing_alg_values_supported: [...DPOP_ALGS],
        ...(options.metadata?.resourceName ? { resource_name: options.metadata.resourceName } : {}),
        ...(options.metadata?.resourceDocumentation ? { resource_documentation: options.metadata.resourceDocumentation } : {}),
      };
    },
  };
}
