// Authorization codes (RFC 6749 4.1.2): ≥ 128-bit random, stored only as a hash, AUTH_CODE_TTL lifetime,
// single use, bound to client, redirect_uri, PKCE challenge, scope, nonce, user and auth_time — and, with
// the `dpop_jkt` authorization request parameter (RFC 9449 10), to a DPoP key.
// Issued by the interaction flow after consent; redeemed by the authorization_code grant.

export interface AuthorizationCodeInput {
  clientId: string;
  redirectUri: string;
  /** S256 code_challenge (43 base64url characters). */
  codeChallenge: string;
  scope: readonly string[];
  nonce?: string;
  userId: string;
  /** Epoch seconds of the login that this code carries. */
  authTime: number;
  /** The browser session's sid (id_token `sid`, back-channel logout; docs/backchannel-logout.md#sid). */
  sessionId?: string;
  /** RFC 8707 resource requested at /authorize, if any. */
  resource?: string;
  /** RFC 9449 10: the JWK thumbprint whose proof alone may redeem the code. */
  dpopJkt?: string;
}

export interface AuthorizationCodeIssuer {
  /** Stores the grant and returns the code to put in the redirect. */
  issue(input: AuthorizationCodeInput): Promise<string>;
}
