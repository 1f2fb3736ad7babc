// Removing a user's link to an upstream provider, for /account and the admin API alike. The rule
// (sign-in-ways.ts): never the last way in. The check and the delete run in one transaction holding the
// user's row, so two parallel unlinks of an account's last two links cannot both pass the check.
import type { AuditEventInput } from '../audit/audit-events.js';
import type { AuditSink } from '../audit/audit-sink.js';
import { runTransaction } from '../storage/after-commit.js';
import type { Db } from '../storage/database.js';
import { hasPassword, mayUnlinkOne } from './sign-in-ways.js';

export type UnlinkOutcome = 'unlinked' | 'not_linked' | 'last_way_in' | 'no_user';

export async function unlinkProvider(
  deps: { db: Db; audit: AuditSink },
  target: { userId: string; providerId: string },
  /** The audit event written in the same transaction when the link is removed. */
  event: Omit<AuditEventInput, 'subject'>,
): Promise<UnlinkOutcome> {
  return runTransaction(deps.db, async (tx) => {
    const user = await tx.selectFrom('users').select(['id', 'password_hash']).where('id', '=', target.userId).forUpdate().executeTakeFirst();
    if (!user) return 'no_user';
    const links = await tx.selectFrom('federated_identities').select('provider_id').where('user_id', '=', user.id).execute();
    if (!links.some((l) => l.provider_id === target.providerId)) return 'not_linked';
    const passkeys = await tx.selectFrom('passkey_credentials').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', user.id).executeTakeFirstOrThrow();
    if (!mayUnlinkOne({ password: hasPassword({ passwordHash: user.password_hash }), passkeys: Number(passkeys.n), links: links.length })) return 'last_way_in';
    await tx.deleteFrom('federated_identities').where('user_id', '=', user.id).where('provider_id', '=', target.providerId).execute();
    await deps.audit.emit({ ...event, subject: user.id }, { tx });
    return 'unlinked';
  });
}

/** The rule with its store bound (services.ts). */
export type UnlinkProvider = (target: { userId: string; providerId: string }, event: Omit<AuditEventInput, 'subject'>) => Promise<UnlinkOutcome>;
