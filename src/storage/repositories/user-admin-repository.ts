// What the admin API and the CLI need of users beyond the login's reads: pages in a stable order with a
// case-insensitive prefix search on username or e-mail (indexes of migration 0310) and a search by attribute
// value (migration 0490), the kinds of second
// factors each user has (with a stamp that moves on every change to them), and a version lock for If-Match
// deletes (docs/admin-api.md).
import { sql } from 'kysely';
import type { Db } from '../driver/database.js';
import { toUser, type User } from './users-repository.js';

export interface UserPageRequest {
  /** Rows strictly after this (created_at, id) position; ascending order. */
  after?: { createdAt: Date; id: string };
  limit: number;
  /** Lower-case prefix of the username or the e-mail address. */
  prefix?: string;
  /** Users whose attribute `name` equals one of `values`, or is an array holding one of them. */
  attribute?: { name: string; values: readonly unknown[] };
}

/** The second factors a user has set up (a pending TOTP enrollment is not one yet). */
export type SecondFactorKind = 'totp' | 'recovery_codes' | 'passkey';

/** A passkey as the operator sees it: never the credential id or public key. */
export interface PasskeySummary {
  name: string;
  /** 'singleDevice' or 'multiDevice', as the authenticator reported at registration. */
  deviceType: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface SecondFactors {
  kinds: SecondFactorKind[];
  passkeys: PasskeySummary[];
  /**
   * Changes with every factor change (TOTP enrolled or removed, recovery codes regenerated or spent, a passkey
   * added, removed or used): the factors live outside the user row, so the row's version alone would not move
   * the user's ETag.
   */
  stamp: string;
}

export const NO_SECOND_FACTORS: SecondFactors = Object.freeze({ kinds: [], passkeys: [], stamp: '' }) as SecondFactors;

export interface UserAdminRepository {
  page(request: UserPageRequest): Promise<User[]>;
  secondFactors(userIds: readonly string[]): Promise<Map<string, SecondFactors>>;
  /** The user's version, its row locked until the transaction ends; undefined when there is no such user. */
  lockVersion(id: string): Promise<number | undefined>;
}

/** `%`, `_` and `\` are LIKE's wildcards and escape: a search term means itself. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function userAdminRepository(db: Db): UserAdminRepository {
  return {
    async page({ after, limit, prefix, attribute }) {
      let query = db.selectFrom('users').selectAll();
      if (attribute !== undefined) {
        // Containment only, so the GIN index of migration 0490 answers it (jsonb_path_ops): equal, or held by an array.
        const documents = attribute.values.flatMap((value) => [{ [attribute.name]: value }, { [attribute.name]: [value] }]);
        query = query.where((eb) => eb.or(documents.map((doc) => eb(sql`attributes`, '@>', sql`${JSON.stringify(doc)}::jsonb`))));
      }
      if (prefix !== undefined) {
        const pattern = likePrefix(prefix);
        // Two index-friendly conditions (text_pattern_ops), or-ed: a bitmap OR of two index scans.
        query = query.where((eb) => eb.or([eb(sql`lower(username)`, 'like', pattern), eb(sql`lower(email)`, 'like', pattern)]));
      }
      if (after) {
        query = query.where((eb) => eb.or([eb('created_at', '>', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)])]));
      }
      return (await query.orderBy('created_at').orderBy('id').limit(limit).execute()).map(toUser);
    },
    async secondFactors(userIds) {
      const ids = [...userIds];
      const factors = new Map<string, SecondFactors>(ids.map((id) => [id, { kinds: [], passkeys: [], stamp: '' }]));
      if (ids.length === 0) return factors;
      // The stamp takes values that differ between two enrollments even within one millisecond: the sealed
      // TOTP secret (random nonce) and the recovery codes' hashes. It only ever leaves as a truncated SHA-256
      // in an ETag (http/conditional.ts), from which neither can be read back.
      const totp = await db
        .selectFrom('totp_credentials')
        .select(['user_id', 'secret_sealed'])
        .where('user_id', 'in', ids)
        .where('confirmed_at', 'is not', null)
        .execute();
      const codes = await db
        .selectFrom('recovery_codes')
        .select(['user_id', 'code_hash'])
        .where('user_id', 'in', ids)
        .orderBy('user_id')
        .orderBy('code_hash')
        .execute();
      const passkeys = await db
        .selectFrom('passkey_credentials')
        .select(['user_id', 'credential_id', 'name', 'device_type', 'created_at', 'last_used_at'])
        .where('user_id', 'in', ids)
        .orderBy('created_at')
        .orderBy('credential_id')
        .execute();
      const stamps = new Map<string, string[]>(ids.map((id) => [id, []]));
      const time = (d: Date | null) => (d === null ? '-' : d.toISOString());
      for (const r of totp) {
        factors.get(r.user_id)?.kinds.push('totp');
        stamps.get(r.user_id)?.push(`totp:${r.secret_sealed}`);
      }
      for (const r of codes) {
        const entry = factors.get(r.user_id);
        if (entry && !entry.kinds.includes('recovery_codes')) entry.kinds.push('recovery_codes');
        stamps.get(r.user_id)?.push(`code:${r.code_hash}`);
      }
      for (const r of passkeys) {
        const entry = factors.get(r.user_id);
        if (!entry) continue;
        if (!entry.kinds.includes('passkey')) entry.kinds.push('passkey');
        entry.passkeys.push({ name: r.name, deviceType: r.device_type, createdAt: r.created_at, lastUsedAt: r.last_used_at });
        stamps.get(r.user_id)?.push(`passkey:${r.credential_id}:${r.name}:${time(r.last_used_at)}`);
      }
      for (const [id, entry] of factors) entry.stamp = stamps.get(id)!.join('\n');
      return factors;
    },
    async lockVersion(id) {
      const row = await db.selectFrom('users').select('version').where('id', '=', id).forUpdate().executeTakeFirst();
      return row?.version;
    },
  };
}
