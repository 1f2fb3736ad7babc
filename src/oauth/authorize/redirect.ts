// Authorization responses (RFC 6749 4.1.2, 4.1.2.1) with the issuer identifier (RFC 9207 2), as a value:
// where it goes (redirect_uri, state, response mode) and its parameters. In query mode the parameters are
// appended to the registered redirect_uri as it is, so its own query survives unchanged (RFC 6749 3.1.2),
// and the browser is sent on with 303 See Other (RFC 9700 4.12: never 307) — or, after a form of ours, with
// the hand-over page (src/interaction/answer.ts). Form-post delivery is a page
// (src/interaction/pages/form-post-page.ts).
import { type OAuthError, safeDescription } from '../../http/errors.js';
import type { RedirectTarget } from './authorization-request.js';

export const REDIRECT_STATUS = 303;

export interface AuthorizationResponse {
  target: RedirectTarget;
  /** In the order they are sent; undefined ones are left out. */
  params: Record<string, string | undefined>;
}

export function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  const fragmentAt = uri.indexOf('#');
  const base = fragmentAt === -1 ? uri : uri.slice(0, fragmentAt);
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${query.toString()}`;
}

export const successResponse = (target: RedirectTarget, code: string, issuer: string): AuthorizationResponse => ({
  target,
  params: { code, state: target.state, iss: issuer },
});

export const errorResponse = (target: RedirectTarget, error: OAuthError, issuer: string): AuthorizationResponse => ({
  target,
  params: { error: error.error, error_description: safeDescription(error.description), state: target.state, iss: issuer },
});

/** The response as a query-mode redirect URL. */
export const responseUrl = (response: AuthorizationResponse): string => withQuery(response.target.redirectUri, response.params);

export const successRedirect = (target: RedirectTarget, code: string, issuer: string): string => responseUrl(successResponse(target, code, issuer));

export const errorRedirect = (target: RedirectTarget, error: OAuthError, issuer: string): string => responseUrl(errorResponse(target, error, issuer));

/** An OAuthError that may be delivered to the client, because its client and redirect_uri were checked. */
export class AuthorizationErrorRedirect extends Error {
  override readonly name = 'AuthorizationErrorRedirect';
  constructor(
    readonly target: RedirectTarget,
    readonly error: OAuthError,
  ) {
    super(error.description);
  }
}
