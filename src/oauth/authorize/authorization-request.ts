// The validated authorization request (RFC 6749 4.1.1, OIDC Core 3.1.2.1): what survives the checks of
// /authorize, stored server-side while the user logs in and consents.
export type Prompt = 'none' | 'login' | 'consent' | 'select_account';

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  scope: string[];
  /** S256 challenge, 43 base64url characters. */
  codeChallenge: string;
  nonce?: string;
  prompt: Prompt[];
  /** OIDC max_age in seconds; 0 is the same as prompt=login. */
  maxAge?: number;
  loginHint?: string;
  /** `sub` of a verified id_token_hint: the user the client expects to be signed in. */
  idTokenHintSub?: string;
  /** RFC 8707 resource, when the client named it. */
  resource?: string;
  /** RFC 9449 10: the DPoP key (JWK thumbprint) the code will be bound to. */
  dpopJkt?: string;
  /** The request's own parameters, to start the flow again when the interaction expired. */
  parameters: Record<string, string>;
}

/** Where an error may safely be sent once client and redirect_uri are trusted (RFC 6749 4.1.2.1). */
export interface RedirectTarget {
  redirectUri: string;
  state?: string;
}
