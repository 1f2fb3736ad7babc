// `--trust-mfa` (docs/federation.md): whether an OpenID provider's id_token says the user passed more than
// one factor there — `amr` containing `mfa` (RFC 8176), or an `acr` that means multi-factor. Only the
// id_token's claims count (callback.ts keeps userinfo's amr and acr out), and only for a provider the
// operator marked trusted; anything else leaves the local account's own second factor to be asked.
import type { UpstreamIdentity } from './upstream-claims.js';

/** acr values that mean multi-factor: ours (another Gatehouse upstream) and OpenID PAPE's. */
export const MFA_ACR_VALUES: readonly string[] = ['urn:gatehouse:acr:mfa', 'http://schemas.openid.net/pape/policies/2007/06/multi-factor'];

export function upstreamAssertsMfa(claims: UpstreamIdentity['claims']): boolean {
  const amr = claims.amr;
  if (Array.isArray(amr) && amr.includes('mfa')) return true;
  return typeof claims.acr === 'string' && MFA_ACR_VALUES.includes(claims.acr);
}
