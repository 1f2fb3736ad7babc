// Security headers of the login and consent pages. Their form POST may end in a 303 to the client, and
// browsers apply CSP form-action to the redirects that follow a form submission (CSP3 §6.4.1), so the
// registered redirect_uri's origin (or scheme, for native apps' private-use schemes) joins 'self' there.
import { pageSecurityHeaders } from '../../http/html.js';

/** The CSP source naming where a redirect_uri points. */
export function cspSource(redirectUri: string): string | undefined {
  try {
    const url = new URL(redirectUri);
    if (url.origin !== 'null') return url.origin;
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : undefined;
  } catch {
    return undefined;
  }
}

export function pageHeadersAllowingRedirectTo(redirectUri: string): Record<keyof typeof pageSecurityHeaders, string> {
  const source = cspSource(redirectUri);
  const csp = pageSecurityHeaders['content-security-policy'];
  return {
    ...pageSecurityHeaders,
    'content-security-policy': source ? csp.replace("form-action 'self'", `form-action 'self' ${source}`) : csp,
  };
}
