// RFC 9449 5: a token request carrying a DPoP proof gets tokens bound to the proof's key (cnf.jkt,
// token_type DPoP). A request without the header gets bearer tokens; a bad proof is 400 invalid_dpop_proof;
// a proof without a required nonce, or with a stale or foreign one, is 400 use_dpop_nonce with a fresh
// nonce in DPoP-Nonce (RFC 9449 8), which standard clients retry with once.
import { OAuthError } from '../../http/errors.js';
import { DpopNonceError, DpopProofError, verifyDpopProof, type DpopDeps } from '../../tokens/dpop/proof.js';

export async function dpopBinding(
  header: string | string[] | undefined,
  tokenEndpointUrl: string,
  deps: DpopDeps & { requireNonce: boolean },
): Promise<string | undefined> {
  if (header === undefined) return undefined;
  try {
    return await verifyDpopProof({ header, method: 'POST', url: tokenEndpointUrl, requireNonce: deps.requireNonce }, deps);
  } catch (error) {
    if (error instanceof DpopNonceError) throw new OAuthError('use_dpop_nonce', error.message, { headers: { 'dpop-nonce': deps.nonces.current() } });
    if (error instanceof DpopProofError) throw new OAuthError('invalid_dpop_proof', error.message);
    throw error;
  }
}
