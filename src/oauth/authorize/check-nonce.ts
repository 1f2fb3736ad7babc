// OIDC Core 3.1.2.1: nonce is optional in the code flow and goes into the id_token unchanged. Its length
// is bounded with every other parameter (check-lengths: refused, never truncated).
import type { RequestParameters } from './parameters.js';

export function checkNonce(params: RequestParameters): string | undefined {
  return params.values.nonce;
}
