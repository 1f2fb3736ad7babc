// Removing a way into an account — a user's link to an upstream provider, or one of its passkeys — for
// /account and the admin API alike. The rule (sign-in-ways.ts): never the last way in. The check and the
// delete run in one transaction holding the user's row, so two parallel removals of an account's last two
// ways (two links, a link and a passkey, two passkeys) cannot both pass the check: the second waits for the
// first to commit and then counts one way fewer.
import type { AuditEventInput } from '../audit/audit-events.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { Store } from '../storage/store.js';
import { hasPassword, mayRemovePasskey, mayUnlinkOne, type SignInWays } from './sign-in-ways.js';

export type UnlinkOutcome = 'unlinked' | 'not_linked' | 'last_way_in' | 'no_user';
export type RemovePasskeyOutcome = 'removed' | 'not_found' | 'last_way_in' | 'no_user';

/** The user's row held for the rest of the transaction, and the ways in it has. */
async function lockedWays(tx: Store, userId: string): Promise<(SignInWays & { linkedProviders: string[]; passkeyIds: string[] }) | undefined> {
  const ways = await tx.signInWays.lockedWays(userId);
  if (!ways) return undefined;
  return {
    password: hasPassword({ passwordHash: ways.passwordHash }),
    passkeys: ways.passkeyIds.length,
    links: ways.linkedProviders.length,
    linkedProviders: ways.linkedProviders,
    passkeyIds: ways.passkeyIds,
  };
}

export async function unlinkProvider(
  deps: { store: Store; audit: AuditSink },
  target: { userId: string; providerId: string },
  /** The audit event written in the same transaction when the link is removed. */
  event: Omit<AuditEventInput, 'subject'>,
): Promise<UnlinkOutcome> {
  return deps.store.transaction(async (tx) => {
    const ways = await lockedWays(tx, target.userId);
    if (!ways) return 'no_user';
    if (!ways.linkedProviders.includes(target.providerId)) return 'not_linked';
    if (!mayUnlinkOne(ways)) return 'last_way_in';
    await tx.signInWays.removeLink(target.userId, target.providerId);
    await deps.audit.emit({ ...event, subject: target.userId }, { tx });
    return 'unlinked';
  });
}

export async function removePasskey(
  deps: { store: Store; audit: AuditSink },
  target: { userId: string; credentialId: string },
  /** The audit event written in the same transaction when the passkey is removed. */
  event: Omit<AuditEventInput, 'subject'>,
): Promise<RemovePasskeyOutcome> {
  return deps.store.transaction(async (tx) => {
    const ways = await lockedWays(tx, target.userId);
    if (!ways) return 'no_user';
    // Scoped to the user: another user's credential id matches nothing.
    if (!ways.passkeyIds.includes(target.credentialId)) return 'not_found';
    if (!mayRemovePasskey(ways)) return 'last_way_in';
    await tx.signInWays.removePasskey(target.userId, target.credentialId);
    await deps.audit.emit({ ...event, subject: target.userId }, { tx });
    return 'removed';
  });
}

/** The rules with their store bound (services.ts). */
export type UnlinkProvider = (target: { userId: string; providerId: string }, event: Omit<AuditEventInput, 'subject'>) => Promise<UnlinkOutcome>;
export type RemovePasskey = (target: { userId: string; credentialId: string }, event: Omit<AuditEventInput, 'subject'>) => Promise<RemovePasskeyOutcome>;
