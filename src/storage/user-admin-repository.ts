// What the admin API and the CLI need of users beyond the login's reads: pages in a stable order with a
// case-insensitive prefix search on username or e-mail (indexes of migration 0310), the kinds of second
// factors each user has, and a version lock for If-Match deletes (docs/admin-api.md).
import { sql } from 'kysely';
import type { Db } from './database.js';
import { toUser, type User } from './users-repository.js';

export interface UserPageRequest {
  /** Rows strictly after this (created_at, id) position; ascending order. */
  after?: { createdAt: Date; id: string };
  limit: number;
  /** Lower-case prefix of the username or the e-mail address. */
  prefix?: string;
}

/** The second factors a user has set up (a pending TOTP enrollment is not one yet). */
export type SecondFactorKind = 'totp' | 'recovery_codes';

export interface UserAdminRepository {
  page(request: UserPageRequest): Promise<User[]>;
  secondFactorKinds(userIds: readonly string[]): Promise<Map<string, SecondFactorKind[]>>;
  /** The user's version, its row locked until the transaction ends; undefined when there is no such user. */
  lockVersion(id: string): Promise<number | undefined>;
}

/** `%`, `_` and `\` are LIKE's wildcards and escape: a search term means itself. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function userAdminRepository(db: Db): UserAdminRepository {
  return {
    async page({ after, limit, prefix }) {
      let query = db.selectFrom('users').selectAll();
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
    async secondFactorKinds(userIds) {
      const kinds = new Map<string, SecondFactorKind[]>(userIds.map((id) => [id, []]));
      if (userIds.length === 0) return kinds;
      const totp = await db.selectFrom('totp_credentials').select('user_id').where('user_id', 'in', [...userIds]).where('confirmed_at', 'is not', null).execute();
      const codes = await db.selectFrom('recovery_codes').select('user_id').distinct().where('user_id', 'in', [...userIds]).execute();
      for (const r of totp) kinds.get(r.user_id)?.push('totp');
      for (const r of codes) kinds.get(r.user_id)?.push('recovery_codes');
      return kinds;
    },
    async lockVersion(id) {
      const row = await db.selectFrom('users').select('version').where('id', '=', id).forUpdate().executeTakeFirst();
      return row?.version;
    },
  };
}
