// Where the verification keys come from (RFC 8725 §3.10, OIDC Core §10.1.1): the JWKS, selected by `kid`.
// The local and remote sources are the resource-server kit's (packages/resource-server-kit/src/key-source.ts);
// in-process, Gatehouse reads the KeyService's published set itself (one copy of the key rows per process, so
// the API, /userinfo and /introspect never lag behind what this instance serves and signs with). Each refreshes
// on an unknown `kid` at most once per cooldown, so a flood of tokens with invented kids cannot turn into a
// flood of database reads or JWKS fetches (no amplification).
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { kidsOf, type KeySource } from '@gatehouse/resource-server';
import type { KeyService } from '../crypto/keys.js';

export { localKeySource, remoteKeySource, type KeySource, type RefreshPolicy } from '@gatehouse/resource-server';

/**
 * This process's signing keys. The KeyService keeps its copy at most KEY_REFRESH_INTERVAL old, and a rotated
 * key signs only after every instance has served it longer than that, so a token from another instance
 * finds its key here at once; an unknown kid still makes the KeyService re-read the rows (rate limited
 * process-wide) before the token is refused, for an instance whose clock runs behind.
 */
export function keyServiceSource(keys: Pick<KeyService, 'jwks' | 'refreshForUnknownKid' | 'reads'>): KeySource {
  let built: { set: JSONWebKeySet; getKey: ReturnType<typeof createLocalJWKSet>; kids: ReadonlySet<string> } | undefined;
  const current = async () => {
    const set = await keys.jwks();
    if (built?.set !== set) built = { set, getKey: createLocalJWKSet(set), kids: kidsOf(set) };
    return built;
  };
  const getKey: JWTVerifyGetKey = async (header, token) => {
    try {
      return await (await current()).getKey(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || typeof header.kid !== 'string') throw error;
      await keys.refreshForUnknownKid(header.kid);
      return (await current()).getKey(header, token);
    }
  };
  return { getKey, loads: () => keys.reads(), publishedKids: async () => (await current()).kids };
}
