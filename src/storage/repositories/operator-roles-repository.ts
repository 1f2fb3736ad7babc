// Who is an operator of the admin console, and whether they may change things (docs/console.md). One row
// per operator; the CLI writes it (admin-services/operator-roles-service.ts), the code exchange of the
// console client reads it (oauth/console-access.ts).
import type { Db } from '../driver/database.js';

export interface OperatorRole {
  userId: string;
  canWrite: boolean;
  grantedAt: Date;
}

export interface OperatorRolesRepository {
  find(userId: string): Promise<OperatorRole | undefined>;
  /** Makes the user an operator, or changes an operator's level. */
  put(role: OperatorRole): Promise<void>;
  /** Whether the user was an operator. */
  remove(userId: string): Promise<boolean>;
  list(): Promise<OperatorRole[]>;
}

export function operatorRolesRepository(db: Db): OperatorRolesRepository {
  const toRole = (r: { user_id: string; can_write: boolean; granted_at: Date }): OperatorRole => ({
    userId: r.user_id,
    canWrite: r.can_write,
    grantedAt: r.granted_at,
  });
  return {
    async find(userId) {
      const row = await db.selectFrom('operator_roles').selectAll().where('user_id', '=', userId).executeTakeFirst();
      return row ? toRole(row) : undefined;
    },
    async put(role) {
      await db
        .insertInto('operator_roles')
        .values({ user_id: role.userId, can_write: role.canWrite, granted_at: role.grantedAt })
        .onConflict((c) => c.column('user_id').doUpdateSet({ can_write: role.canWrite, granted_at: role.grantedAt }))
        .execute();
    },
    async remove(userId) {
      const result = await db.deleteFrom('operator_roles').where('user_id', '=', userId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async list() {
      return (await db.selectFrom('operator_roles').selectAll().orderBy('granted_at').execute()).map(toRole);
    },
  };
}
