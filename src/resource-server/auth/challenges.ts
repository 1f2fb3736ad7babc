// RFC 6750 §3 challenges carried on Problem Details errors. A request without a token gets a bare
// `Bearer` challenge; `error` is added only when a token was sent (§3.1). Descriptions are fixed text
// chosen here, never token contents, and pass through safeDescription (no CR/LF, no quotes).
import { ProblemError, safeDescription, type RefusalDetails } from '../../http/errors.js';
import { dpopFailureHeaders, dpopRefusal, type PossessionFailure } from '../../tokens/dpop/possession.js';

export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

const challenge = (params: Record<string, string>): string => {
  const list = Object.entries(params).map(([k, v]) => `${k}="${safeDescription(v)}"`);
  return list.length > 0 ? `Bearer ${list.join(', ')}` : 'Bearer';
};

export function missingToken(triedQuery = false): ProblemError {
  const detail = triedQuery
    ? 'Access tokens are not accepted in the URL query; send `Authorization: Bearer <token>`.'
    : 'This resource requires `Authorization: Bearer <access token>`.';
  return new ProblemError('unauthorized', detail, { headers: { 'www-authenticate': challenge({}) } });
}

/**
 * RFC 9449 §7.1: failures that concern a DPoP-bound token or the DPoP scheme answer with a DPoP
 * challenge naming the accepted proof algorithms.
 */
export function dpopError(failure: PossessionFailure): ProblemError {
  const code = failure.error === 'invalid_token' ? 'invalid-token' : failure.error === 'use_dpop_nonce' ? 'use-dpop-nonce' : 'invalid-dpop-proof';
  return new ProblemError(code, safeDescription(failure.description), { headers: dpopFailureHeaders(failure), log: dpopRefusal(failure) });
}

/**
 * `refusal`: why, for the log line (docs/security/token-verification.md) — the verifier's reason, `revoked`,
 * `scope`, … — so an operator can tell an unknown kid from an expired or revoked token. Never the token.
 */
export function bearerError(error: BearerErrorCode, description: string, refusal: string, scope?: readonly string[]): ProblemError {
  const params: Record<string, string> = { error, error_description: description };
  if (scope) params.scope = scope.join(' ');
  const code = error === 'invalid_token' ? 'invalid-token' : error === 'insufficient_scope' ? 'insufficient-scope' : 'invalid-request';
  const log: RefusalDetails = { reason: error, token_refusal: refusal, ...(scope ? { required_scope: scope } : {}) };
  return new ProblemError(code, safeDescription(description), { headers: { 'www-authenticate': challenge(params) }, log });
}
