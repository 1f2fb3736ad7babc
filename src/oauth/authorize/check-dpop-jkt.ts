// RFC 9449 10: `dpop_jkt` binds the authorization code to the client's DPoP key, so a code stolen from the
// redirect cannot be redeemed without that key. The value is a JWK SHA-256 thumbprint (RFC 7638): exactly
// 43 base64url characters; anything else would bind the code to a key no proof can ever match.
import { OAuthError } from '../../http/errors.js';
import type { RequestParameters } from './parameters.js';

const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;

export function checkDpopJkt(params: RequestParameters): string | undefined {
  const jkt = params.values.dpop_jkt;
  if (jkt !== undefined && !THUMBPRINT.test(jkt))
    throw new OAuthError('invalid_request', 'dpop_jkt must be a base64url SHA-256 JWK thumbprint (43 characters).');
  return jkt;
}
