// Granting and revoking operator access to the admin console: `gatehouse users grant-admin USER
// [--read-only]` and `revoke-admin USER`. Only the CLI calls this (the admin API has no route to it), so an
// admin token can never make another admin. Any change ends the user's live console grants (their access
// tokens go on the revocation list), so a downgrade or a revocation takes effect at once, not when the
// tokens expire. One audit event per change, in its transaction. docs/console.md
import type { Clock } from '../clock.js';
import type { Store } from '../storage/store.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { OperatorRole } from '../storage/repositories/operator-roles-repository.js';
import { CONSOLE_CLIENT_ID } from '../oauth/clients/console-client.js';
import type { User } from '../storage/repositories/users-repository.js';
import type { ActingAs } from './clients-service.js';
import { userChangeEvent } from './user-events.js';

export interface OperatorRoleServiceDeps {
  store: Store;
  clock: Clock;
  audit: AuditSink;
}

export interface OperatorAccess {
  id: string;
  username: string;
  operator: boolean;
  scopes: string[];
  console_grants_revoked: number;
}

const scopesOf = (role: Pick<OperatorRole, 'canWrite'> | undefined): string[] => (!role ? [] : role.canWrite ? ['admin:read', 'admin:write'] : ['admin:read']);

export async function grantAdmin(
  deps: OperatorRoleServiceDeps,
  user: Pick<User, 'id' | 'username'>,
  options: { readOnly: boolean },
  as: ActingAs,
): Promise<OperatorAccess> {
  return deps.store.transaction(async (tx) => {
    const role = { userId: user.id, canWrite: !options.readOnly, grantedAt: new Date(deps.clock.now()) };
    await tx.operatorRoles.put(role);
    const revoked = await tx.grants.revoke({ userId: user.id, clientId: CONSOLE_CLIENT_ID });
    await deps.audit.emit(userChangeEvent('admin.user.operator_granted', user.id, as, ['operator'], { scope: scopesOf(role).join(' ') }), { tx });
    return { id: user.id, username: user.username, operator: true, scopes: scopesOf(role), console_grants_revoked: revoked };
  });
}

export async function revokeAdmin(deps: OperatorRoleServiceDeps, user: Pick<User, 'id' | 'username'>, as: ActingAs): Promise<OperatorAccess> {
  return deps.store.transaction(async (tx) => {
    const was = await tx.operatorRoles.remove(user.id);
    const revoked = await tx.grants.revoke({ userId: user.id, clientId: CONSOLE_CLIENT_ID });
    if (was) await deps.audit.emit(userChangeEvent('admin.user.operator_revoked', user.id, as, ['operator']), { tx });
    return { id: user.id, username: user.username, operator: false, scopes: [], console_grants_revoked: revoked };
  });
}
