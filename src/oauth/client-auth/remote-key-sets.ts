// The key sets of clients that registered a jwks_uri (RFC 7591 2), one per app. Each is jose's remote set
// (cached, refreshed on an unknown kid at most once per cooldown), fetched through pinnedGet so a jwks_uri
// cannot reach the server's own network, hang a request or fill its memory. The map is an LRU bounded by
// CLIENT_JWKS_CACHE_SIZE, so registering many clients cannot grow it without limit.
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../../config.js';
import type { OutboundPolicy } from '../../http/outbound/outbound-policy.js';
import { pinnedGet } from '../../http/outbound/pinned-get.js';

export interface RemoteKeySets {
  forUri(uri: string): JWTVerifyGetKey;
  has(uri: string): boolean;
  readonly size: number;
}

export type RemoteKeySetsConfig = Pick<Config, 'CLIENT_JWKS_FETCH_TIMEOUT' | 'CLIENT_JWKS_MAX_BYTES' | 'CLIENT_JWKS_CACHE_SIZE'>;

export function remoteKeySets(config: RemoteKeySetsConfig, policy: OutboundPolicy): RemoteKeySets {
  const sets = new Map<string, JWTVerifyGetKey>();
  const fetchKeySet = async (url: string, init: RequestInit): Promise<Response> => {
    const { body, contentType } = await pinnedGet(url, {
      policy,
      timeoutMs: config.CLIENT_JWKS_FETCH_TIMEOUT,
      maxBytes: config.CLIENT_JWKS_MAX_BYTES,
      headers: { accept: 'application/jwk-set+json, application/json' },
      signal: init.signal ?? undefined,
    });
    return new Response(new Uint8Array(body), { status: 200, headers: contentType ? { 'content-type': contentType } : {} });
  };

  return {
    forUri(uri) {
      const known = sets.get(uri);
      if (known) {
        sets.delete(uri);
        sets.set(uri, known);
        return known;
      }
      const created = createRemoteJWKSet(new URL(uri), { timeoutDuration: config.CLIENT_JWKS_FETCH_TIMEOUT, [customFetch]: fetchKeySet });
      sets.set(uri, created);
      if (sets.size > config.CLIENT_JWKS_CACHE_SIZE) sets.delete(sets.keys().next().value!);
      return created;
    },
    has: (uri) => sets.has(uri),
    get size() {
      return sets.size;
    },
  };
}
