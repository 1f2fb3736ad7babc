// What can go wrong on the upstream round trip, as values (never thrown past this module, never a 500):
// the sign-in pipeline shows a page for each and logs `detail`, which may quote the upstream but never a
// secret or token (docs/federation.md).
export type FederationErrorCode =
  /** The callback's state is not the one this browser's request carried (CSRF, a replayed or foreign callback). */
  | 'state_mismatch'
  /** RFC 9207: the authorization response names another issuer, or omits it when the upstream promises it (mix-up). */
  | 'issuer_mismatch'
  /** The id_token's nonce is not this request's (a replayed or injected id_token). */
  | 'nonce_mismatch'
  /** The callback arrived at another provider's callback, or for a pending request of another provider. */
  | 'provider_mismatch'
  /** The pending request is older than its lifetime. */
  | 'expired'
  /** The upstream answered the authorization request with an error (access_denied, ...). */
  | 'upstream_refused'
  /** The upstream could not be reached in time, or its address is not allowed, or it sent too much. */
  | 'upstream_unreachable'
  /** The upstream answered, but not acceptably (token error, invalid id_token, bad userinfo). */
  | 'upstream_invalid'
  /** The upstream gave no subject (or, by its claim mapping, no usable identity). */
  | 'missing_subject'
  /** The provider is disabled, or its secret's environment variable is not set on this server. */
  | 'provider_unavailable';

export interface FederationError {
  code: FederationErrorCode;
  /** For the log: what happened, in the operator's terms. */
  detail: string;
  /** The upstream's own `error` value, when it sent one (access_denied, invalid_grant...). */
  upstreamError?: string;
}

export class FederationFailure extends Error {
  override readonly name = 'FederationFailure';
  constructor(
    readonly code: FederationErrorCode,
    readonly detail: string,
    readonly upstreamError?: string,
  ) {
    super(detail);
  }
  toValue(): FederationError {
    return { code: this.code, detail: this.detail, ...(this.upstreamError !== undefined ? { upstreamError: this.upstreamError } : {}) };
  }
}
