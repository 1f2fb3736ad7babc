// PKCE is required of every client (RFC 9700 2.1.1) and only S256 is accepted (RFC 7636 4.2, 7.2:
// `plain` defeats it). The challenge is base64url(SHA-256(verifier)): exactly 43 characters, no padding.
import { OAuthError } from '../../http/errors.js';
import type { RequestParameters } from './parameters.js';

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function checkPkce(params: RequestParameters): string {
  const { code_challenge: challenge, code_challenge_method: method } = params.values;
  if (challenge === undefined) throw new OAuthError('invalid_request', 'code_challenge is required (PKCE with S256).');
  if (method === undefined) throw new OAuthError('invalid_request', 'code_challenge_method is required and must be S256.');
  if (method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256.');
  if (!S256_CHALLENGE.test(challenge)) throw new OAuthError('invalid_request', 'code_challenge must be 43 base64url characters.');
  return challenge;
}
