// RFC 9449 5: a token request carrying a DPoP proof gets tokens bound to the proof's key (cnf.jkt,
// token_type DPoP). A request without the header gets bearer tokens; a bad proof is 400 invalid_dpop_proof.
import { OAuthError } from '../../http/errors.js';
import { DpopProofError, verifyDpopProof, type DpopDeps } from '../dpop/proof.js';

export async function dpopBinding(header: string | string[] | undefined, tokenEndpointUrl: string, deps: DpopDeps): Promise<string | undefined> {
  if (header === undefined) return undefined;
  try {
    return await verifyDpopProof({ header, method: 'POST', url: tokenEndpointUrl }, deps);
  } catch (error) {
    if (error instanceof DpopProofError) throw new OAuthError('invalid_dpop_proof', error.message);
    throw error;
  }
}
