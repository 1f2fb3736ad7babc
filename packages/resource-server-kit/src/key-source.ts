// Where the verification keys come from (RFC 8725 §3.10, OIDC Core §10.1.1): the JWKS, selected by `kid`.
// Local, a JWKS read by a function (Gatehouse passes its own key rows); remote, a JWKS URL through jose's
// createRemoteJWKSet. Each refreshes on an unknown `kid` at most once per cooldown, so a flood of tokens with
// invented kids cannot turn into a flood of database reads or JWKS fetches (no amplification).
import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Clock } from './clock.js';

export interface KeySource {
  readonly getKey: JWTVerifyGetKey;
  /** How many times the JWKS has been (re)loaded; lets tests prove there is no amplification. */
  readonly loads: () => number;
  /** The kids currently published, reloading the JWKS first when it is older than its max age. */
  readonly publishedKids: () => Promise<ReadonlySet<string>>;
  /** Reloads now (a remote set: a background refresher calls it, so the cache stays young while the issuer answers). */
  readonly refresh?: () => Promise<void>;
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
  return { getKey: set, loads: () => loads, publishedKids, refresh: () => set.reload() };
}

export const kidsOf = (set: JSONWebKeySet): ReadonlySet<string> => new Set(set.keys.map((k) => k.kid).filter((kid): kid is string => typeof kid === 'string'));
