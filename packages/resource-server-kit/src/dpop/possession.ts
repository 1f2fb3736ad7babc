// RFC 9449 §7: a protected resource (an API, Gatehouse's /userinfo) accepts a DPoP-bound access token (cnf.jkt) only
// with the DPoP scheme and a proof, for this very request, signed by the key the token is bound to; an
// unbound token only with the Bearer scheme. Runs after the token itself was authenticated. The caller
// turns a failure into its own error format, with a `DPoP` challenge (dpopChallenge) and, for
// use_dpop_nonce (RFC 9449 9), the nonce to retry with in a DPoP-Nonce header (dpopFailureHeaders).
import { DpopKeyMismatch, DpopNonceError, DpopProofError, DPOP_ALGS, verifyDpopProof, type DpopDeps } from './proof.js';
import { safeDescription } from '../challenge.js';

export type PresentationScheme = 'Bearer' | 'DPoP';

export interface PresentedToken {
  scheme: PresentationScheme;
  token: string;
}

// RFC 6750 §2.1 b64token (= RFC 9449 token68).
const CREDENTIALS = /^(bearer|dpop) +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The access token of an `Authorization` header with the Bearer or DPoP scheme: 'absent' when there is no
 * header or it uses another scheme, 'malformed' when it uses one of these without a well-formed token.
 */
export function authorizationCredentials(header: string | undefined): PresentedToken | 'absent' | 'malformed' {
  const scheme = header === undefined ? undefined : /^(bearer|dpop)(\s|$)/i.exec(header)?.[1]?.toLowerCase();
  if (scheme === undefined) return 'absent';
  const token = CREDENTIALS.exec(header!)?.[2];
  if (token === undefined) return 'malformed';
  return { scheme: scheme === 'dpop' ? 'DPoP' : 'Bearer', token };
}

export interface PossessionFailure {
  error: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce';
  description: string;
  /** use_dpop_nonce: the nonce the client is to put in its next proof. */
  nonce?: string;
}

export interface PresentedRequest extends PresentedToken {
  method: string;
  /** The URL the client called, without query (the proof's htu). */
  url: string;
  dpopHeader: string | string[] | undefined;
}

/**
 * undefined when the presentation is right for the token; otherwise why not. `partition` (the token's client)
 * is who the proof is spent for in the replay store.
 */
export async function possessionFailure(
  presented: PresentedRequest,
  boundKey: string | undefined,
  deps: DpopDeps & { requireNonce: boolean },
  partition?: string,
): Promise<PossessionFailure | undefined> {
  if (boundKey === undefined) {
    return presented.scheme === 'DPoP'
      ? { error: 'invalid_token', description: 'The access token is not DPoP-bound; send it with the Bearer scheme.' }
      : undefined;
  }
  if (presented.scheme === 'Bearer')
    return { error: 'invalid_token', description: 'The access token is DPoP-bound; send it with the DPoP scheme and a DPoP proof.' };
  try {
    const { dpopHeader: header, method, url, token: accessToken } = presented;
    await verifyDpopProof(
      { header, method, url, accessToken, requireNonce: deps.requireNonce, boundKey, ...(partition !== undefined ? { partition } : {}) },
      deps,
    );
  } catch (error) {
    if (error instanceof DpopNonceError) return { error: 'use_dpop_nonce', description: error.message, nonce: deps.nonces.current() };
    if (error instanceof DpopKeyMismatch)
      return { error: 'invalid_dpop_proof', description: 'The DPoP proof is not signed by the key the access token is bound to.' };
    if (!(error instanceof DpopProofError)) throw error;
    // jose's wording may quote the proof's claims; a fixed sentence stands in for it.
    return { error: 'invalid_dpop_proof', description: error.message.startsWith('the DPoP proof is invalid:') ? 'The DPoP proof is invalid.' : error.message };
  }
  return undefined;
}

/** The `WWW-Authenticate` value for a failure that concerns DPoP (RFC 9449 §7.1). */
const dpopChallenge = ({ error, description }: PossessionFailure): string =>
  `DPoP algs="${DPOP_ALGS.join(' ')}", error="${error}", error_description="${safeDescription(description)}"`;

/** The refusal log fields of a DPoP failure: its class and its fixed sentence (never the proof or the token). */
export const dpopRefusalLog = (failure: PossessionFailure): { reason: string; token_refusal: string; detail: string } => ({
  reason: failure.error,
  token_refusal: failure.error === 'invalid_token' ? 'dpop_binding' : failure.error === 'use_dpop_nonce' ? 'dpop_nonce' : 'dpop_proof',
  detail: failure.description,
});

/** The headers of a DPoP failure: the challenge, and the nonce to retry with when one is asked for. */
export const dpopFailureHeaders = (failure: PossessionFailure): Record<string, string> => ({
  'www-authenticate': dpopChallenge(failure),
  ...(failure.nonce !== undefined ? { 'dpop-nonce': failure.nonce } : {}),
});
