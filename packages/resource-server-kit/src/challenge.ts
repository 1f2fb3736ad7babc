// Refusals and their RFC 6750 §3 / RFC 9449 §7.1 / RFC 9470 challenges. A refusal is a value: each surface
// (Gatehouse's /v1 with Problem Details, the Fastify plugin and `gatehouse protect` with OAuth error JSON)
// renders it in its own format with the same status and `WWW-Authenticate`. Descriptions are fixed text
// chosen here, never token contents, and pass through safeDescription (no CR/LF, no quotes).
import type { TokenRefusal } from './access-token.js';

/** Characters allowed in a quoted challenge parameter here: printable ASCII without `"` and `\`. */
export function safeDescription(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x3B\x3D\x3F-\x5B\x5D-\x7E]/g, ' ').slice(0, 300);
}

export type ChallengeError =
  | 'invalid_request'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'insufficient_user_authentication'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce';

/**
 * Why a request was refused, for logs and metrics: the verifier's reason, or one of the request-level ones.
 * A fixed code, never anything read from the request.
 */
export type RefusalReason =
  | TokenRefusal
  | 'missing_token'
  | 'token_in_query'
  | 'revoked'
  | 'key_retired'
  | 'scope'
  | 'step_up'
  | 'dpop_binding'
  | 'dpop_proof'
  | 'dpop_nonce'
  | 'keys_unavailable'
  | 'revocations_unavailable'
  | 'configuration_unavailable'
  | 'ambiguous_path'
  | 'method_override'
  | 'route_conflict';

export interface Refusal {
  ok: false;
  status: 400 | 401 | 403 | 503;
  /** The OAuth error code; absent for a request that carried no token (RFC 6750 §3.1) and for 503. */
  error?: ChallengeError;
  /** A fixed sentence safe to show the caller. */
  description: string;
  reason: RefusalReason;
  /** The `WWW-Authenticate` value, when the refusal has one. */
  challenge?: string;
  /** Every header to send: `www-authenticate`, `dpop-nonce`, `retry-after`. */
  headers: Record<string, string>;
  /** insufficient_scope: the scopes the operation wants. */
  scope?: readonly string[];
  /** insufficient_user_authentication: the acr values that would do (RFC 9470). */
  acrValues?: readonly string[];
  /** The cause of a 503, for the operator's log (never shown). */
  cause?: unknown;
}

export const DPOP_CHALLENGE_ALGS = ['ES256', 'RS256', 'PS256'] as const;

export interface ChallengeContext {
  /** RFC 9728 §5.1: the URL of the resource's metadata document, named in every 401. */
  resourceMetadata?: string | undefined;
}

function scheme(name: 'Bearer' | 'DPoP', params: Record<string, string>, context: ChallengeContext, status: number): string {
  const all = { ...params, ...(status === 401 && context.resourceMetadata ? { resource_metadata: context.resourceMetadata } : {}) };
  const list = Object.entries(all).map(([k, v]) => `${k}="${safeDescription(v)}"`);
  return list.length > 0 ? `${name} ${list.join(', ')}` : name;
}

function refusal(fields: Omit<Refusal, 'ok' | 'headers' | 'challenge'>, challenge: string | undefined, extra: Record<string, string> = {}): Refusal {
  return {
    ok: false,
    ...fields,
    description: safeDescription(fields.description),
    ...(challenge !== undefined ? { challenge } : {}),
    headers: { ...(challenge !== undefined ? { 'www-authenticate': challenge } : {}), ...extra },
  };
}

/** RFC 6750 §3.1: no token at all gets a bare challenge, without `error`. */
export function missingTokenRefusal(context: ChallengeContext, triedQuery = false): Refusal {
  const description = triedQuery
    ? 'Access tokens are not accepted in the URL query; send `Authorization: Bearer <token>`.'
    : 'This resource requires `Authorization: Bearer <access token>`.';
  return refusal({ status: 401, description, reason: 'missing_token' }, scheme('Bearer', {}, context, 401));
}

/** invalid_request (400) or invalid_token (401) with a Bearer challenge. */
export function bearerRefusal(error: 'invalid_request' | 'invalid_token', description: string, reason: RefusalReason, context: ChallengeContext): Refusal {
  const status = error === 'invalid_request' ? 400 : 401;
  return refusal({ status, error, description, reason }, scheme('Bearer', { error, error_description: safeDescription(description) }, context, status));
}

/** RFC 6750 §3.1: 403 naming the scopes the operation wants. */
export function insufficientScopeRefusal(scopes: readonly string[], description: string, context: ChallengeContext): Refusal {
  return refusal(
    { status: 403, error: 'insufficient_scope', description, reason: 'scope', scope: scopes },
    scheme('Bearer', { error: 'insufficient_scope', error_description: safeDescription(description), scope: scopes.join(' ') }, context, 403),
  );
}

/** RFC 9470 §3: the user must sign in again with one of `acrValues`; 401 so the client starts a new authorization. */
export function stepUpRefusal(acrValues: readonly string[], context: ChallengeContext): Refusal {
  const description = 'A stronger authentication is required for this operation.';
  return refusal(
    { status: 401, error: 'insufficient_user_authentication', description, reason: 'step_up', acrValues },
    scheme('Bearer', { error: 'insufficient_user_authentication', error_description: description, acr_values: acrValues.join(' ') }, context, 401),
  );
}

/** A request path upstreams read differently (routes.ts): refused before anything else, no challenge (not the token's fault). */
/** A method override naming no method (method-override.ts): 400 before the token, like an ambiguous path. */
export function methodOverrideRefusal(description: string): Refusal {
  return refusal({ status: 400, error: 'invalid_request', description, reason: 'method_override' }, undefined);
}

export function ambiguousPathRefusal(description: string): Refusal {
  return refusal({ status: 400, error: 'invalid_request', description, reason: 'ambiguous_path' }, undefined);
}

/** The rules that may apply to a path demand acr values no one sign-in has (routes.ts, acrConflict): nothing can pass. */
export function routeConflictRefusal(context: ChallengeContext): Refusal {
  const description = 'The rules that may apply to this path demand different authentication methods; no token satisfies all of them.';
  return refusal(
    { status: 403, error: 'insufficient_user_authentication', description, reason: 'route_conflict' },
    scheme('Bearer', { error: 'insufficient_user_authentication', error_description: description }, context, 403),
  );
}

/** RFC 9449 §7.1: a failure that concerns DPoP answers with a DPoP challenge naming the accepted algorithms. */
export function dpopRefusal(
  failure: { error: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce'; description: string; nonce?: string },
  context: ChallengeContext,
): Refusal {
  const reason: RefusalReason = failure.error === 'invalid_token' ? 'dpop_binding' : failure.error === 'use_dpop_nonce' ? 'dpop_nonce' : 'dpop_proof';
  const challenge = scheme(
    'DPoP',
    { algs: DPOP_CHALLENGE_ALGS.join(' '), error: failure.error, error_description: safeDescription(failure.description) },
    context,
    401,
  );
  return refusal(
    { status: 401, error: failure.error, description: failure.description, reason },
    challenge,
    failure.nonce !== undefined ? { 'dpop-nonce': failure.nonce } : {},
  );
}

/** The keys or the revocation list cannot be vouched for: the token is not at fault, try again shortly. */
export function unavailableRefusal(reason: 'keys_unavailable' | 'revocations_unavailable', cause?: unknown): Refusal {
  const description = reason === 'keys_unavailable' ? 'The token signing keys are temporarily unavailable.' : 'The revocation list is temporarily unavailable.';
  return refusal({ status: 503, description, reason, ...(cause !== undefined ? { cause } : {}) }, undefined, { 'retry-after': '5' });
}
