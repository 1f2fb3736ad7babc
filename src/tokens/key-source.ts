// Where the verification keys come from (RFC 8725 §3.10, OIDC Core §10.1.1): the JWKS, selected by `kid`.
// In-process, the KeyService's published set itself (one copy of the key rows per process, so the API, /userinfo
// and /introspect never lag behind what this instance serves and signs with); remote, a JWKS URL through jose's
// createRemoteJWKSet. Each refreshes on an unknown `kid` at most once per cooldown, so a flood of tokens with
// invented kids cannot turn into a flood of database reads or JWKS fetches (no amplification).
import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../clock.js';
import type { KeyService } from '../crypto/keys.js';

export interface KeySource {
  readonly getKey: JWTVerifyGetKey;
  /** How many times the JWKS has been (re)loaded; lets tests prove there is no amplification. */
  readonly loads: () => number;
  /** The kids currently published, reloading the JWKS first when it is older than its max age. */
  readonly publishedKids: () => Promise<ReadonlySet<string>>;
}

export interface RefreshPolicy {
  /** Reload after this long even when every kid is known (picks up retirements). */
  maxAgeMs: number;
  /** Minimum time between two reloads triggered by an unknown kid. */
  cooldownMs: number;
}

const DEFAULT_REFRESH: RefreshPolicy = { maxAgeMs: 300_000, cooldownMs: 30_000 };

/** The in-process JWKS (KeyService.jwks()), timed by the injected clock. */
export function localKeySource(jwks: () => Promise<JSONWebKeySet>, clock: Clock, policy: RefreshPolicy = DEFAULT_REFRESH): KeySource {
  let loadedAt = Number.NEGATIVE_INFINITY;
  let current: ReturnType<typeof createLocalJWKSet> | undefined;
  let pending: Promise<void> | undefined;
  let loads = 0;
  let kids: ReadonlySet<string> = new Set();

  const reload = () =>
    (pending ??= jwks()
      .then((set) => {
        current = createLocalJWKSet(set);
        kids = kidsOf(set);
        loadedAt = clock.now();
        loads += 1;
      })
      .finally(() => {
        pending = undefined;
      }));

  const reloadIfStale = async () => {
    if (!current || clock.now() - loadedAt >= policy.maxAgeMs) await reload();
  };

  const getKey: JWTVerifyGetKey = async (header, token) => {
    await reloadIfStale();
    try {
      return await current!(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || clock.now() - loadedAt < policy.cooldownMs) throw error;
      await reload();
      return current!(header, token);
    }
  };
  const publishedKids = async () => {
    await reloadIfStale();
    return kids;
  };
  return { getKey, loads: () => loads, publishedKids };
}

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

/** A remote JWKS (resource server deployed apart from the authorization server). */
export function remoteKeySource(url: string, policy: RefreshPolicy = DEFAULT_REFRESH): KeySource {
  let loads = 0;
  const counted = async (input: string, init: RequestInit) => {
    loads += 1;
    return fetch(input, { ...init, redirect: 'error' });
  };
  const set = createRemoteJWKSet(new URL(url), {
    cooldownDuration: policy.cooldownMs,
    cacheMaxAge: policy.maxAgeMs,
    timeoutDuration: 5000,
    [customFetch]: counted,
  });
  const publishedKids = async () => {
    if (!set.fresh) await set.reload();
    const current = set.jwks();
    return current ? kidsOf(current) : new Set<string>();
  };
  return { getKey: set, loads: () => loads, publishedKids };
}

const kidsOf = (set: JSONWebKeySet): ReadonlySet<string> => new Set(set.keys.map((k) => k.kid).filter((kid): kid is string => typeof kid === 'string'));
