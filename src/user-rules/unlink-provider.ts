// Removing a way into an account — a user's link to an upstream provider, or one of its passkeys — for
// /account and the admin API alike. The rule (sign-in-ways.ts): never the last way in. The check and the
// delete run in one transaction holding the user's row, so two parallel removals of an account's last two
// ways (two links, a link and a passkey, two passkeys) cannot both pass the check: the second waits for the
// first to commit and then counts one way fewer.
import type { AuditEventInput } from '../audit/audit-events.js';
import type { AuditSink } from '../audit/audit-sink.js';
import { runTransaction } from '../storage/after-commit.js';
import type { Db } from '../storage/database.js';
import { hasPassword, mayRemovePasskey, mayUnlinkOne, type SignInWays } from './sign-in-ways.js';

export type UnlinkOutcome = 'unlinked' | 'not_linked' | 'last_way_in' | 'no_user';
export type RemovePasskeyOutcome = 'removed' | 'not_found' | 'last_way_in' | 'no_user';

/** The user's row held for the rest of the transaction, and the ways in it has. */
async function lockedWays(tx: Db, userId: string): Promise<(SignInWays & { linkedProviders: string[]; passkeyIds: string[] }) | undefined> {
  const user = await tx.selectFrom('users').select(['id', 'password_hash']).where('id', '=', userId).forUpdate().executeTakeFirst();
  if (!user) return undefined;
  const links = await tx.selectFrom('federated_identities').select('provider_id').where('user_id', '=', user.id).execute();
  const passkeys = await tx.selectFrom('passkey_credentials').select('credential_id').where('user_id', '=', user.id).execute();
  return {
    password: hasPassword({ passwordHash: user.password_hash }),
    passkeys: passkeys.length,
    links: links.length,
    linkedProviders: links.map((l) => l.provider_id),
    passkeyIds: passkeys.map((p) => p.credential_id),
  };
}

export async function unlinkProvider(
  deps: { db: Db; audit: AuditSink },
  target: { userId: string; providerId: string },
  /** The audit event written in the same transaction when the link is removed. */
  event: Omit<AuditEventInput, 'subject'>,
): Promise<UnlinkOutcome> {
  return runTransaction(deps.db, async (tx) => {
    const ways = await lockedWays(tx, target.userId);
    if (!ways) return 'no_user';
    if (!ways.linkedProviders.includes(target.providerId)) return 'not_linked';
    if (!mayUnlinkOne(ways)) return 'last_way_in';
    await tx.deleteFrom('federated_identities').where('user_id', '=', target.userId).where('provider_id', '=', target.providerId).execute();
    await deps.audit.emit({ ...event, subject: target.userId }, { tx });
    return 'unlinked';
  });
}

export async function removePasskey(
  deps: { db: Db; audit: AuditSink },
  target: { userId: string; credentialId: string },
  /** The audit event written in the same transaction when the passkey is removed. */
  event: Omit<AuditEventInput, 'subject'>,
): Promise<RemovePasskeyOutcome> {
  return runTransaction(deps.db, async (tx) => {
    const ways = await lockedWays(tx, target.userId);
    if (!ways) return 'no_user';
    // Scoped to the user: another user's credential id matches nothing.
    if (!ways.passkeyIds.includes(target.credentialId)) return 'not_found';
    if (!mayRemovePasskey(ways)) return 'last_way_in';
    await tx.deleteFrom('passkey_credentials').where('user_id', '=', target.userId).where('credential_id', '=', target.credentialId).execute();
    await deps.audit.emit({ ...event, subject: target.userId }, { tx });
    return 'removed';
  });
}

/** The rules with their store bound (services.ts). */
export type UnlinkProvider = (target: { userId: string; providerId: string }, event: Omit<AuditEventInput, 'subject'>) => Promise<UnlinkOutcome>;
export type RemovePasskey = (target: { userId: string; credentialId: string }, event: Omit<AuditEventInput, 'subject'>) => Promise<RemovePasskeyOutcome>;
