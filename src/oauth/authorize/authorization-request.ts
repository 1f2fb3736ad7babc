// The validated authorization request (RFC 6749 4.1.1, OIDC Core 3.1.2.1): what survives the checks of
// /authorize, stored server-side while the user logs in and consents.
import type { ResponseMode } from './check-response-mode.js';

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
  /** RFC 8707 resource, when the client named exactly one. */
  resource?: string;
  /** RFC 8707 resources, when the client named several (the grant's scope is within them). */
  resources?: string[];
  /** RFC 9449 10: the DPoP key (JWK thumbprint) the code will be bound to. */
  dpopJkt?: string;
  /** Absent (requests parked before form_post existed) means query. */
  responseMode?: ResponseMode;
  /**
   * Present when the flow was started on /device for an RFC 8628 device authorization (src/interaction/device/):
   * there is no redirect, the consent is always shown, and the end of the flow approves or denies that
   * authorization (by the hash of its user code) instead of answering a client's redirect_uri.
   */
  device?: { userCodeHash: string };
  /**
   * The request's other (known, length-checked) parameters, those not held above in parsed form, such as
   * id_token_hint: with the fields above they restart the flow when the interaction expired.
   */
  parameters: Record<string, string>;
}

/** Parameters the fields of AuthorizationRequest hold in parsed form, so `parameters` need not repeat them. */
export const PARSED_PARAMETERS: ReadonlySet<string> = new Set([
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'nonce',
  'prompt',
  'max_age',
  'login_hint',
  'resource',
  'response_mode',
  'dpop_jkt',
]);

/** The parameters of an /authorize request equivalent to this one (the restart link of an expired flow). */
export function restartParameters(request: AuthorizationRequest): Record<string, string> {
  const optional: Record<string, string | undefined> = {
    nonce: request.nonce,
    prompt: request.prompt.length > 0 ? request.prompt.join(' ') : undefined,
    max_age: request.maxAge?.toString(),
    login_hint: request.loginHint,
    resource: request.resource,
    response_mode: request.responseMode,
    dpop_jkt: request.dpopJkt,
  };
  return {
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scope.join(' '),
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
    ...Object.fromEntries(Object.entries(optional).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    ...request.parameters,
  };
}

/** Where an error may safely be sent once client and redirect_uri are trusted (RFC 6749 4.1.2.1). */
export interface RedirectTarget {
  redirectUri: string;
  state?: string;
  /** Absent means query. */
  responseMode?: ResponseMode;
}
