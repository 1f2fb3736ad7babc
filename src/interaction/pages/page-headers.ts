// The CSP source naming where a URI points, for the pages whose form-action must name another origin: the
// form-post response page, whose form the browser posts to the client (form-post-page.ts), and a login page
// offering upstream providers, whose button's POST ends in a 303 to the provider's authorization endpoint
// (federation/login-page-federation.ts). The client's redirect_uri is never added to a page's form-action:
// after our forms the client is answered with the hand-over page, not a redirect (hand-over-page.ts). Only a
// page whose own form posts to the client names it (pageHeadersPostingTo).
import { pageSecurityHeaders } from '../../http/html.js';

/** The URI's origin (or its scheme, for a native app's private-use scheme). */
export function cspSource(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    if (url.origin !== 'null') return url.origin;
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The headers of a page whose own form posts to the client: the expired page in form_post mode ("Return to
 * the application" sends the error as a form, expired-page.ts). The form's action itself is the client's, so
 * form-action names the redirect_uri's origin — on that page only.
 */
export function pageHeadersPostingTo(redirectUri: string): Record<keyof typeof pageSecurityHeaders, string> {
  const source = cspSource(redirectUri);
  const csp = pageSecurityHeaders['content-security-policy'];
  return { ...pageSecurityHeaders, 'content-security-policy': source ? csp.replace("form-action 'self'", `form-action 'self' ${source}`) : csp };
}
