// Which browser origins a client may call the token endpoints from: the origins of a public client's
// redirect URIs (its pages live there), plus the origins the operator listed for it (`--allowed-origin`),
// which is the only way for a confidential client. Only http(s) origins count: a private-use scheme
// (com.example.app:/cb) has the opaque origin "null", and "null" is what sandboxed frames and file:// pages
// send, so it never matches.
import { LOOPBACK_HOSTS } from '../clients/redirect-uris.js';

/** Longer Origin headers are refused before any parsing (no real origin comes close). */
const MAX_ORIGIN_LENGTH = 300;

const ORIGIN_SHAPE = /^https?:\/\/[A-Za-z0-9.\-[\]:]+$/;

/** The serialized origin of a URL as browsers send it, or undefined when it is not an http(s) origin. */
function originOf(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an Origin header value is a well-formed http(s) origin, exactly as a browser serializes it. */
export function isSerializedOrigin(value: string): boolean {
  return value.length <= MAX_ORIGIN_LENGTH && ORIGIN_SHAPE.test(value) && originOf(value) === value;
}

/** A reason an operator-given origin is unacceptable, or undefined. Same transport rule as redirect URIs. */
export function allowedOriginProblem(value: string): string | undefined {
  if (!isSerializedOrigin(value)) return 'must be an origin such as https://app.example.com (scheme, host and optional port; no path or trailing slash)';
  const url = new URL(value);
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.includes(url.hostname)) return 'must use https (http only on a loopback host)';
  return undefined;
}

export interface CorsClient {
  type: 'confidential' | 'public';
  redirectUris: readonly string[];
  allowedOrigins: readonly string[];
}

export function clientOrigins(client: CorsClient): Set<string> {
  const origins = new Set(client.allowedOrigins);
  if (client.type === 'public') {
    for (const uri of client.redirectUris) {
      const origin = originOf(uri);
      if (origin) origins.add(origin);
    }
  }
  return origins;
}
