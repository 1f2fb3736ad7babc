// Signing keys: creation, the rotation schedule, the published JWKS and JWT signing (all JWT work via jose).
//
// Schedule (OIDC Core 10.1.1, docs/key-rotation.md): a rotated key is published at once but signs only
// after every instance has served it for a whole JWKS cache time, so no verifier — ours or a client's —
// meets a kid it could not have fetched; the key it replaces stops signing then and stays published until
// every token it could have signed has expired. The schedule is a fact of the row (activates_at), so every
// instance picks the same signing key from the same rows, whatever its own copy's age.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { CompactSign, exportJWK, generateKeyPair, importJWK, type JWK, type JWTPayload, type CryptoKey } from 'jose';
import type { Clock } from '../clock.js';
import type { KeyEncryption } from './key-encryption.js';

/** A signing key as stored (src/storage/repositories/signing-keys-repository.ts): the private JWK only sealed. */
export interface SigningKeyRow {
  kid: string;
  alg: 'ES256' | 'RS256';
  publicJwk: Record<string, unknown>;
  sealedPrivateJwk: string;
  createdAt: Date;
  activatesAt: Date;
  retiresAt: Date | null;
  expiresAt: Date | null;
}

/** The store the key service needs, implemented in src/storage/. */
export interface SigningKeysRepository {
  /** Keys still published at `now` (not yet past expires_at), oldest first. */
  listPublished(now: Date): Promise<SigningKeyRow[]>;
  listAll(): Promise<SigningKeyRow[]>;
  /** Inserts a key and, atomically, schedules the retirement of the keys of that alg it supersedes. */
  insertAndSupersede(key: SigningKeyRow, supersede: { retiresAt: Date; expiresAt: Date } | null): Promise<void>;
}

export type SigningAlg = 'ES256' | 'RS256';
export const SIGNING_ALGS: readonly SigningAlg[] = ['ES256', 'RS256'];

export interface PublicJwk extends JWK {
  kid: string;
  alg: SigningAlg;
  use: 'sig';
}

export interface KeyScheduleEntry {
  kid: string;
  alg: SigningAlg;
  state: 'pending' | 'active' | 'retired' | 'expired';
  /** Served in the JWKS from here on (at every instance within KEY_REFRESH_INTERVAL). */
  published_at: string;
  /** Signs from here on: published_at + JWKS_CACHE_TTL + KEY_REFRESH_INTERVAL + CLOCK_SKEW for a rotated key. */
  activates_at: string;
  retires_at: string | null;
  expires_at: string | null;
}

export interface KeyService {
  /** Creates the first ES256 and RS256 keys when none exist (first start). */
  ensureKeys(): Promise<void>;
  /**
   * Publishes a new key now; it signs once the schedule's margin has passed (see rotationMarginMs).
   * `within`: the repository of the caller's transaction (the rotation then commits with the caller's
   * audit event, and the caller calls `reload` once it has committed).
   */
  rotate(alg: SigningAlg, within?: SigningKeysRepository): Promise<KeyScheduleEntry>;
  /** Re-reads the key rows now (after a rotation committed in the caller's transaction). */
  reload(): Promise<void>;
  /** The published set as this instance knows it: never older than the refresh interval. */
  jwks(): Promise<{ keys: PublicJwk[] }>;
  /**
   * A verifier met `kid` and this instance does not know it: resolves once the key rows have been read by a
   * read that began after this call. At most one such read per cooldown for the whole process: callers in
   * between wait for the next one and share it, so invented kids cannot turn into database load, and they
   * cannot make this instance refuse a genuine new kid either.
   */
  refreshForUnknownKid(kid: string): Promise<void>;
  sign(payload: JWTPayload, options: { alg: SigningAlg; typ: string }): Promise<string>;
  schedule(): Promise<KeyScheduleEntry[]>;
  /** How many times the key rows were read from the database; lets tests prove there is no amplification. */
  reads(): number;
}

export interface KeyServiceOptions {
  repository: SigningKeysRepository;
  encryption: KeyEncryption;
  clock: Clock;
  /** JWKS_CACHE_TTL: how long a verifier may keep a JWKS it fetched. */
  publishDelaySeconds: number;
  /** Longest lifetime of anything signed (max of access and id token TTLs). */
  maxTokenLifetimeSeconds: number;
  clockSkewSeconds: number;
  /** KEY_REFRESH_INTERVAL: the longest this instance serves, signs and verifies from its copy of the key rows. */
  refreshIntervalMs?: number;
  /** Minimum time between two reads caused by unknown kids. */
  unknownKidCooldownMs?: number;
}

interface LoadedKey {
  row: SigningKeyRow;
  privateKey?: Promise<CryptoKey | Uint8Array>;
}

const encoder = new TextEncoder();
const sleep = async (ms: number) => {
  if (ms > 0) await sleepFor(ms);
};

const DEFAULT_KEY_REFRESH_MS = 30_000;
export const DEFAULT_UNKNOWN_KID_COOLDOWN_MS = 1_000;

/**
 * From publication to first signature. Every instance re-reads the rows at least once per refresh
 * interval, so one interval after the insert every instance serves the key; a verifier that fetched a
 * JWKS just before that keeps it for JWKS_CACHE_TTL; instance clocks may disagree by CLOCK_SKEW.
 */
const rotationMarginMs = (o: Pick<KeyServiceOptions, 'publishDelaySeconds' | 'clockSkewSeconds' | 'refreshIntervalMs'>): number =>
  (o.publishDelaySeconds + o.clockSkewSeconds) * 1000 + (o.refreshIntervalMs ?? DEFAULT_KEY_REFRESH_MS);

export function keyService(options: KeyServiceOptions): KeyService {
  const { repository, encryption, clock } = options;
  const refreshIntervalMs = options.refreshIntervalMs ?? DEFAULT_KEY_REFRESH_MS;
  const cooldownMs = options.unknownKidCooldownMs ?? DEFAULT_UNKNOWN_KID_COOLDOWN_MS;
  let cache: { at: number; keys: LoadedKey[] } | undefined;
  let reading: Promise<LoadedKey[]> | undefined;
  let reads = 0;
  // Real time, not the injected clock: the cooldown paces database reads, and callers sleep through it.
  let lastUnknownKidRead = Number.NEGATIVE_INFINITY;
  let nextUnknownKidRead: Promise<void> | undefined;
  let published: { cache: LoadedKey[]; kids: string; value: { keys: PublicJwk[] } } | undefined;

  // One read at a time: requests arriving while the rows are being read wait for that read instead of
  // starting their own. `at` is taken before the query, so a cache never claims to be newer than it is.
  function read(): Promise<LoadedKey[]> {
    return (reading ??= (async () => {
      const at = clock.now();
      reads += 1;
      const rows = await repository.listPublished(new Date(at));
      const previous = new Map(cache?.keys.map((k) => [k.row.kid, k]));
      const keys = rows.map((row) => {
        const known = previous.get(row.kid);
        return known ? { ...known, row } : { row };
      });
      cache = { at, keys };
      return keys;
    })().finally(() => {
      reading = undefined;
    }));
  }

  async function load(force = false): Promise<LoadedKey[]> {
    if (!force && cache && clock.now() - cache.at < refreshIntervalMs) return cache.keys;
    // A forced read must see rows committed before it was asked for, so it does not join an earlier read.
    if (force && reading) await reading.catch(() => undefined);
    return read();
  }

  const stateOf = (row: SigningKeyRow, now: number): KeyScheduleEntry['state'] => {
    if (row.expiresAt && row.expiresAt.getTime() <= now) return 'expired';
    if (row.retiresAt && row.retiresAt.getTime() <= now) return 'retired';
    if (row.activatesAt.getTime() > now) return 'pending';
    return 'active';
  };

  const describe = (row: SigningKeyRow, now: number): KeyScheduleEntry => ({
    kid: row.kid,
    alg: row.alg,
    state: stateOf(row, now),
    published_at: row.createdAt.toISOString(),
    activates_at: row.activatesAt.toISOString(),
    retires_at: row.retiresAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
  });

  async function generate(alg: SigningAlg) {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: 2048 } : {}) });
    const kid = `${alg.toLowerCase()}-${randomUUID()}`;
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
    return { kid, alg, publicJwk, sealedPrivateJwk: encryption.seal(JSON.stringify(await exportJWK(privateKey)), kid) };
  }

  // The schedule is taken after the key pair exists, so the time RSA generation takes is not cut from the margin.
  const scheduled = (key: Awaited<ReturnType<typeof generate>>, publishedAt: number, activatesAt: number): SigningKeyRow => ({
    ...key,
    createdAt: new Date(publishedAt),
    activatesAt: new Date(activatesAt),
    retiresAt: null,
    expiresAt: null,
  });

  async function activeKey(alg: SigningAlg): Promise<LoadedKey> {
    const now = clock.now();
    const pick = (keys: LoadedKey[]) =>
      keys.filter((k) => k.row.alg === alg && stateOf(k.row, now) === 'active').sort((a, b) => b.row.activatesAt.getTime() - a.row.activatesAt.getTime())[0];
    const key = pick(await load()) ?? pick(await load(true));
    if (!key) throw new Error(`no active ${alg} signing key`);
    return key;
  }

  return {
    async ensureKeys() {
      const keys = await load(true);
      for (const alg of SIGNING_ALGS) {
        if (keys.some((k) => k.row.alg === alg && stateOf(k.row, clock.now()) !== 'expired')) continue;
        // No token has been signed yet, so the first key may sign immediately.
        const key = await generate(alg);
        const now = clock.now();
        await repository.insertAndSupersede(scheduled(key, now, now), null);
      }
      await load(true);
    },

    async rotate(alg, within) {
      const key = await generate(alg);
      const now = clock.now();
      const activatesAt = now + rotationMarginMs({ ...options, refreshIntervalMs });
      // The superseded key stops signing when the new one starts (on an instance whose copy of the rows is
      // older than this change, at its next refresh, which falls before activatesAt), and stays published
      // until everything it signed has expired, plus one refresh for instances still holding the old rows.
      const expiresAt = activatesAt + (options.maxTokenLifetimeSeconds + options.clockSkewSeconds) * 1000 + refreshIntervalMs;
      const row = scheduled(key, now, activatesAt);
      await (within ?? repository).insertAndSupersede(row, { retiresAt: row.activatesAt, expiresAt: new Date(expiresAt) });
      // Uncommitted rows are invisible to this instance's reads: the caller reloads after its commit.
      if (!within) await load(true);
      return describe(row, now);
    },

    async reload() {
      await load(true);
    },

    async jwks() {
      const now = clock.now();
      const keys = await load();
      const live = keys.filter((k) => stateOf(k.row, now) !== 'expired');
      const kids = live.map((k) => k.row.kid).join(' ');
      // The same object while nothing changed, so verifiers can keep the key set they built from it.
      if (published?.cache !== keys || published.kids !== kids) {
        published = { cache: keys, kids, value: { keys: live.map((k) => k.row.publicJwk as unknown as PublicJwk) } };
      }
      return published.value;
    },

    async refreshForUnknownKid(kid) {
      if ((await load()).some((k) => k.row.kid === kid)) return;
      // The caller waits for a read that starts after it asked, never for one already under way nor for none
      // at all: a read under way may have begun before the key was committed, and a cooldown spent by
      // invented kids must not refuse a real one (issue 28: another instance signed with a key this one had
      // not read yet, and its tokens were refused). Callers share the next read, so reads stay ≤ 1 per cooldown.
      nextUnknownKidRead ??= (async () => {
        await sleep(lastUnknownKidRead + cooldownMs - performance.now());
        nextUnknownKidRead = undefined;
        lastUnknownKidRead = performance.now();
        await load(true);
      })();
      await nextUnknownKidRead;
    },

    async sign(payload, { alg, typ }) {
      const key = await activeKey(alg);
      key.privateKey ??= importJWK(JSON.parse(encryption.open(key.row.sealedPrivateJwk, key.row.kid)) as JWK, alg);
      // The issuers hand over complete claims (iat, exp, jti included), so jose's JWS signs their JSON as it is —
      // as node-oidc-provider does. SignJWT would clone and re-check them first: ~40 µs of event-loop time per
      // token, measured (13% of a client_credentials request).
      return new CompactSign(encoder.encode(JSON.stringify(payload))).setProtectedHeader({ alg, typ, kid: key.row.kid }).sign(await key.privateKey);
    },

    async schedule() {
      const now = clock.now();
      return (await repository.listAll()).map((row) => describe(row, now));
    },

    reads: () => reads,
  };
}
