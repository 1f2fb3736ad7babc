import type { Db } from '../driver/database.js';
// The key service (src/crypto/keys.ts) declares the store it needs; this is that store.
import type { SigningKeyRow, SigningKeysRepository } from '../../crypto/keys.js';

export function signingKeysRepository(db: Db): SigningKeysRepository {
  const toRow = (r: {
    kid: string;
    alg: string;
    public_jwk: unknown;
    sealed_private_jwk: string;
    created_at: Date;
    activates_at: Date;
    retires_at: Date | null;
    expires_at: Date | null;
  }): SigningKeyRow => ({
    kid: r.kid,
    alg: r.alg as SigningKeyRow['alg'],
    publicJwk: r.public_jwk as Record<string, unknown>,
    sealedPrivateJwk: r.sealed_private_jwk,
    createdAt: r.created_at,
    activatesAt: r.activates_at,
    retiresAt: r.retires_at,
    expiresAt: r.expires_at,
  });
  return {
    async listPublished(now) {
      const rows = await db
        .selectFrom('signing_keys')
        .selectAll()
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('activates_at')
        .orderBy('kid')
        .execute();
      return rows.map(toRow);
    },
    async listAll() {
      const rows = await db.selectFrom('signing_keys').selectAll().orderBy('activates_at').orderBy('kid').execute();
      return rows.map(toRow);
    },
    async insertAndSupersede(key, supersede) {
      const write = async (tx: Db) => {
        if (supersede) {
          await tx
            .updateTable('signing_keys')
            .set({ retires_at: supersede.retiresAt, expires_at: supersede.expiresAt })
            .where('alg', '=', key.alg)
            .where((eb) => eb.or([eb('retires_at', 'is', null), eb('retires_at', '>', supersede.retiresAt)]))
            .execute();
        }
        await tx
          .insertInto('signing_keys')
          .values({
            kid: key.kid,
            alg: key.alg,
            public_jwk: JSON.stringify(key.publicJwk),
            sealed_private_jwk: key.sealedPrivateJwk,
            created_at: key.createdAt,
            activates_at: key.activatesAt,
            retires_at: key.retiresAt,
            expires_at: key.expiresAt,
          })
          .execute();
      };
      // Joins the caller's transaction (an admin rotation and its audit event), else opens its own.
      await (db.isTransaction ? write(db) : db.transaction().execute(write));
    },
  };
}
