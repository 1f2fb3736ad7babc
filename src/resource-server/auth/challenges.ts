// The resource API's rendering of the resource-server kit's refusals (packages/resource-server-kit/src/challenge.ts):
// the same status and RFC 6750 §3 / RFC 9449 §7.1 challenge, carried on a Problem Details error. A request
// without a token gets a bare `Bearer` challenge; `error` is added only when a token was sent (§3.1).
import { bearerRefusal, dpopRefusalLog, insufficientScopeRefusal, type Refusal, type RefusalReason } from '@gatehouse/resource-server';
import { ProblemError, type RefusalDetails } from '../../http/errors.js';
import type { PossessionFailure } from '../../tokens/dpop/possession.js';

export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

const PROBLEM_CODES = {
  invalid_request: 'invalid-request',
  invalid_token: 'invalid-token',
  insufficient_scope: 'insufficient-scope',
  invalid_dpop_proof: 'invalid-dpop-proof',
  use_dpop_nonce: 'use-dpop-nonce',
  insufficient_user_authentication: 'unauthorized',
} as const;

/**
 * A kit refusal as a Problem Details error. The log says why — the verifier's reason, `revoked`, `scope`, … —
 * so an operator can tell an unknown kid from an expired or revoked token (docs/security/token-verification.md). Never the token.
 */
export function problemOf(refusal: Refusal): ProblemError {
  if (refusal.status === 503) {
    return new ProblemError('service-unavailable', 'The token signing keys are temporarily unavailable.', { headers: refusal.headers, cause: refusal.cause });
  }
  if (refusal.error === undefined) return new ProblemError('unauthorized', refusal.description, { headers: refusal.headers });
  const dpop = refusal.headers['www-authenticate']?.startsWith('DPoP');
  const log: RefusalDetails = dpop
    ? dpopRefusalLog({ error: refusal.error as PossessionFailure['error'], description: refusal.description })
    : { reason: refusal.error, token_refusal: refusal.reason, ...(refusal.scope ? { required_scope: refusal.scope } : {}) };
  return new ProblemError(PROBLEM_CODES[refusal.error], refusal.description, { headers: refusal.headers, log });
}

export function bearerError(error: BearerErrorCode, description: string, refusal: RefusalReason | string, scope?: readonly string[]): ProblemError {
  if (error === 'insufficient_scope') {
    return problemOf({ ...insufficientScopeRefusal(scope ?? [], description, {}), reason: refusal as RefusalReason });
  }
  return problemOf(bearerRefusal(error, description, refusal as RefusalReason, {}));
}
