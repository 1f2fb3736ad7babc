// OIDC Core 3.1.2.1: nonce is optional in the code flow and goes into the id_token unchanged, so a long
// one is refused rather than truncated.
import { OAuthError } from '../../http/errors.js';
import type { RequestParameters } from './parameters.js';

export const MAX_NONCE_LENGTH = 512;

export function checkNonce(params: RequestParameters): string | undefined {
  const nonce = params.values.nonce;
  if (nonce !== undefined && nonce.length > MAX_NONCE_LENGTH) {
    throw new OAuthError('invalid_request', `nonce is longer than ${MAX_NONCE_LENGTH} characters.`);
  }
  return nonce;
}
