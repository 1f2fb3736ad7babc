// Refresh tokens (RFC 6749 6, RFC 9700 4.14.2): opaque 256-bit values stored as SHA-256, rotated on every
// use for every client; presenting a rotated or revoked token revokes the whole family. Optional
// REFRESH_REUSE_GRACE: the same old token presented again by its client shortly after rotation gets the
// same successor pair back (sealed under a key only the old token can derive) instead of a revocation.
// A DPoP-bound token (RFC 9449 5) rotates, and is replayed, only for a proof of its key; a request without
// that proof is refused before anything else and changes nothing — it shows the token leaked, but not that
// the client's own copy did, and whoever sent it can use neither.
import { hkdfSync } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { keyEncryption } from '../../crypto/key-encryption.js';
import { randomToken, sha256 } from '../../crypto/random.js';
import type { Store } from '../../storage/store.js';
import type { IssuedAccessTokenRecord } from '../../storage/repositories/grants-repository.js';
import type { RefreshTokenRecord, RotatedGrant } from '../../storage/repositories/refresh-tokens-repository.js';

export type { GrantRecord } from '../../storage/repositories/grants-repository.js';

export type RotationFailure = 'unknown' | 'other_client' | 'dpop_key' | 'reused' | 'expired' | 'wider_scope' | 'in_flight';

export type Rotation =
  | ({ kind: 'rotated'; refreshToken: string } & RotatedGrant)
  /** Within the grace window: the successor response already sent once, as JSON. */
  | { kind: 'replayed'; response: string }
  | { kind: 'refused'; reason: RotationFailure; grantId?: string };

export interface RefreshTokens {
  /** `accessToken`: the jti about to be signed, recorded under the grant by the rotation itself. */
  /** `dpopJkt`: thumbprint of the request's verified DPoP proof key, if it carried one. */
  rotate(input: {
    token: string;
    clientId: string;
    scope: readonly string[];
    accessToken: IssuedAccessTokenRecord;
    dpopJkt?: string | undefined;
  }): Promise<Rotation>;
  /** REFRESH_REUSE_GRACE: remembers the response that answered this (now rotated) token. */
  rememberSuccessor(token: string, response: string): Promise<void>;
  /** The token's record when it is live, undefined otherwise. */
  findLive(token: string): Promise<RefreshTokenRecord | undefined>;
  find(token: string): Promise<RefreshTokenRecord | undefined>;
  revokeFamily(grantId: string): Promise<void>;
}

export interface RefreshTokensDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'REFRESH_TOKEN_IDLE_TTL' | 'REFRESH_REUSE_GRACE'>;
}

export const REFRESH_TOKEN_BYTES = 32;

const sealerFor = (token: string) => keyEncryption(Buffer.from(hkdfSync('sha256', token, new Uint8Array(0), 'gatehouse refresh reuse grace', 32)));

export function refreshTokens(deps: RefreshTokensDeps): RefreshTokens {
  const { store: db, clock, config } = deps;
  const store = db.refreshTokens;
  const grants = db.grants;

  const isLive = (record: RefreshTokenRecord): boolean => {
    const now = clock.now();
    return record.rotatedAt === null && record.grant.revokedAt === null && record.idleExpiresAt.getTime() > now && record.grant.expiresAt.getTime() > now;
  };

  function withinGrace(record: RefreshTokenRecord): boolean {
    return (
      config.REFRESH_REUSE_GRACE > 0 &&
      record.rotatedAt !== null &&
      record.grant.revokedAt === null &&
      clock.now() - record.rotatedAt.getTime() <= config.REFRESH_REUSE_GRACE * 1000
    );
  }

  /** Why rotation matched nothing — and, for a rotated or revoked token, the family's revocation. */
  async function explain(token: string, clientId: string, scope: readonly string[], dpopJkt: string | undefined): Promise<Rotation> {
    const record = await store.find(sha256(token));
    if (!record) return { kind: 'refused', reason: 'unknown' };
    const grantId = record.grant.id;
    if (record.grant.clientId !== clientId) return { kind: 'refused', reason: 'other_client' };
    if (record.dpopJkt !== null && record.dpopJkt !== dpopJkt) return { kind: 'refused', reason: 'dpop_key', grantId };
    if (record.rotatedAt !== null || record.grant.revokedAt !== null) {
      if (withinGrace(record)) {
        if (record.sealedSuccessor === null) return { kind: 'refused', reason: 'in_flight', grantId };
        return { kind: 'replayed', response: sealerFor(token).open(record.sealedSuccessor, grantId) };
      }
      await grants.revoke({ grantId });
      return { kind: 'refused', reason: 'reused', grantId };
    }
    if (!isLive(record)) return { kind: 'refused', reason: 'expired', grantId };
    if (!scope.every((s) => record.grant.scope.includes(s))) return { kind: 'refused', reason: 'wider_scope', grantId };
    // It was live a moment ago but did not rotate: a concurrent change; refuse rather than guess.
    return { kind: 'refused', reason: 'unknown', grantId };
  }

  return {
    async rotate({ token, clientId, scope, accessToken, dpopJkt }) {
      const successor = randomToken(REFRESH_TOKEN_BYTES);
      const rotated = await store.rotate({
        oldHash: sha256(token),
        newHash: sha256(successor),
        clientId,
        scope,
        idleSeconds: config.REFRESH_TOKEN_IDLE_TTL,
        accessToken,
        dpopJkt,
      });
      return rotated ? { kind: 'rotated', ...rotated, refreshToken: successor } : explain(token, clientId, scope, dpopJkt);
    },
    async rememberSuccessor(token, response) {
      if (config.REFRESH_REUSE_GRACE <= 0) return;
      const record = await store.find(sha256(token));
      if (record) await store.sealSuccessor(sha256(token), sealerFor(token).seal(response, record.grant.id));
    },
    async findLive(token) {
      const record = await store.find(sha256(token));
      return record && isLive(record) ? record : undefined;
    },
    find: (token) => store.find(sha256(token)),
    async revokeFamily(grantId) {
      await grants.revoke({ grantId });
    },
  };
}
