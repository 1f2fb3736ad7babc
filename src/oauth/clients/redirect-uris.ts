// Redirect URI registration rules (RFC 6749 3.1.2, RFC 9700 2.1, RFC 8252 7): absolute, no fragment,
// https — except http on a loopback host (native apps and development) and private-use schemes of native
// apps (reverse domain name, so they contain a dot). At /authorize the comparison is exact string equality.
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** A reason the URI is unacceptable, or undefined when it may be registered. */
export function redirectUriProblem(raw: string): string | undefined {
  if (raw.includes('#')) return 'must not contain a fragment';
  if (/[\s*]/.test(raw)) return 'must not contain whitespace or wildcards';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.username || url.password) return 'must not contain user information';
  if (url.protocol === 'https:') return url.hostname ? undefined : 'must name a host';
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.includes(url.hostname) ? undefined : 'must use https (http only on a loopback host)';
  return isPrivateUseScheme(url.protocol) ? undefined : `scheme ${url.protocol} is not allowed`;
}

/** RFC 8252 7.1: private-use URI schemes are reverse domain names such as `com.example.app:`. */
const isPrivateUseScheme = (protocol: string): boolean => /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(protocol);
