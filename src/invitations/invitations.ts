// Invitations (issue 31; docs/email.md): an operator creates an account by e-mail address (`gatehouse users
// invite`, POST /admin/v1/users/invitations) and the invitee chooses the password through a link.
//
// - The account exists from the invitation on, with a password nobody knows (the hash of a random value
//   that is thrown away), so every existing path — login, admin, deletion — treats it like any account.
// - The link carries a random 256-bit token; only its SHA-256 is stored (account_tokens), bound to the
//   purpose `invitation` and the account, expiring after INVITATION_TTL, redeemed at most once by one
//   UPDATE, refused after use, revocation, expiry, or a change of the account's password or e-mail address.
// - The e-mail is written to the outbox in the invitation's transaction, its link sealed (src/outbox/).
// - Accepting sets the password under the operator's password rules, marks the e-mail verified (the
//   invitee proved they read it), ends any session of the account, and is an audit event; so are the
//   invitation and its revocation.
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { AuditSink } from '../audit/audit-sink.js';
import { hashPassword } from '../crypto/passwords.js';
import { randomToken, sha256 } from '../crypto/random.js';
import type { Store } from '../storage/store.js';
import type { AccountToken } from '../storage/repositories/account-tokens-repository.js';
import { UsernameTakenError, type User } from '../storage/repositories/users-repository.js';
import { endUserAccess } from '../user-rules/end-user-access.js';
import { AdminRuleError } from '../admin-services/rule-error.js';
import { checkPassword, USERNAME, USERNAME_RULE } from '../admin-services/users-service.js';
import { userChangeEvent } from '../admin-services/user-events.js';
import type { ActingAs } from '../admin-services/clients-service.js';
import type { OutboxWriter } from '../outbox/writer.js';
import { MAIL_ADDRESS } from '../config/mail-settings.js';
import { EMAIL_CHANNEL } from '../mail/email-channel.js';
import { MAIL_OFF_REASON, mailMode } from '../mail/mail-mode.js';
import { chooseLocale, isLocale, type Locale } from '../mail/catalogue.js';

export const INVITATION_PATH = '/invitation';
const PURPOSE = 'invitation';
const MAX_EMAIL = 254;

export interface InvitationDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'ISSUER' | 'NODE_ENV' | 'SMTP_URL' | 'INVITATION_TTL'>;
  audit: AuditSink;
  outbox: OutboxWriter;
}

export interface InvitationInput {
  email: string;
  name?: string | undefined;
  /** Defaults to the address (which the username rule allows when it is at most 64 characters). */
  username?: string | undefined;
  /** The invitee's language for the e-mail: a locale, or an Accept-Language header; English otherwise. */
  locale?: string | undefined;
}

export interface Invitation {
  id: string;
  userId: string;
  email: string;
  createdAt: Date;
  expiresAt: Date;
}

const toInvitation = (t: AccountToken): Invitation => ({ id: t.id, userId: t.userId, email: t.email, createdAt: t.createdAt, expiresAt: t.expiresAt });

/** A changed password voids the link: the token remembers a digest of the hash it was issued under. */
const fingerprint = (user: Pick<User, 'passwordHash'>) => sha256(`password:${user.passwordHash}`);

function checkEmail(email: string): string {
  const value = email.trim();
  if (value.length > MAX_EMAIL || !MAIL_ADDRESS.test(value)) throw new AdminRuleError('invalid', 'must be an e-mail address', 'email');
  return value;
}

function checkName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const value = name.trim();
  if (value.length > 200 || /[\u0000-\u001f\u007f]/.test(value))
    throw new AdminRuleError('invalid', 'must be at most 200 characters without control characters', 'name');
  return value === '' ? undefined : value;
}

/** Creates the account and its invitation, and writes the e-mail to the outbox — one transaction. */
export async function inviteUser(deps: InvitationDeps, input: InvitationInput, as: ActingAs): Promise<{ user: User; invitation: Invitation }> {
  if (mailMode(deps.config) === 'off') throw new AdminRuleError('conflict', MAIL_OFF_REASON, 'email');
  const email = checkEmail(input.email);
  const name = checkName(input.name);
  const username = input.username ?? email;
  if (!USERNAME.test(username))
    throw new AdminRuleError(
      'invalid',
      `must be ${USERNAME_RULE}${input.username === undefined ? ' (the address is not a valid username: give one)' : ''}`,
      'username',
    );
  const locale: Locale = isLocale(input.locale) ? input.locale : chooseLocale(input.locale);
  // A password nobody knows: the account cannot be signed in to until the invitee chooses one.
  const passwordHash = await hashPassword(randomToken());
  const token = randomToken();
  const now = deps.clock.now();
  const ttl = deps.config.INVITATION_TTL;
  return deps.store.transaction(async (tx) => {
    const user = await tx.users.create({ username, passwordHash, email, email_verified: false, ...(name ? { name } : {}) }).catch((error: unknown) => {
      if (error instanceof UsernameTakenError) throw new AdminRuleError('conflict', `the username ${username} is taken`, 'username');
      throw error;
    });
    const issued = await tx.accountTokens.issue({
      purpose: PURPOSE,
      userId: user.id,
      tokenHash: sha256(token),
      email,
      passwordFingerprint: fingerprint(user),
      now: new Date(now),
      expiresAt: new Date(now + ttl * 1000),
    });
    const link = `${deps.config.ISSUER}${INVITATION_PATH}?token=${encodeURIComponent(token)}`;
    await deps.outbox.enqueue(tx, {
      channel: EMAIL_CHANNEL,
      kind: 'invitation',
      recipient: email,
      payload: { template: 'invitation', locale, params: { ...(name ? { name } : {}), hours: Math.round(ttl / 3600) } },
      secret: { link },
    });
    await deps.audit.emit(
      userChangeEvent('admin.user.invited', user.id, as, ['username', 'email', ...(name ? ['name'] : [])].sort(), {
        invitation_id: issued.id,
        expires_at: issued.expiresAt.toISOString(),
      }),
      { tx },
    );
    return { user, invitation: toInvitation(issued) };
  });
}

export async function listPendingInvitations(
  deps: Pick<InvitationDeps, 'store' | 'clock'>,
  page: { before?: { createdAt: Date; id: string }; limit: number },
): Promise<Invitation[]> {
  return (await deps.store.accountTokens.pending(PURPOSE, new Date(deps.clock.now()), page)).map(toInvitation);
}

/** Revokes a pending invitation (its link stops working); the account stays until deleted. */
export async function revokeInvitation(deps: InvitationDeps, id: string, as: ActingAs): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const tokens = tx.accountTokens;
    const invitation = id.includes('\u0000') ? undefined : await tokens.findById(PURPOSE, id);
    if (!invitation || !(await tokens.revoke(PURPOSE, id, new Date(deps.clock.now())))) throw new AdminRuleError('not-found', `no pending invitation ${id}`);
    await deps.audit.emit(userChangeEvent('admin.user.invitation_revoked', invitation.userId, as, [], { invitation_id: id }), { tx });
  });
}

/** The invitation a link names, if it can still be accepted (for showing the page); never redeems it. */
export async function findUsableInvitation(
  deps: Pick<InvitationDeps, 'store' | 'clock'>,
  token: string,
): Promise<{ invitation: Invitation; user: User } | undefined> {
  if (token.length === 0 || token.length > 200) return undefined;
  const found = await deps.store.accountTokens.findUsable(PURPOSE, sha256(token), new Date(deps.clock.now()));
  if (!found) return undefined;
  const user = await deps.store.users.findById(found.userId);
  return user && stillFor(found, user) ? { invitation: toInvitation(found), user } : undefined;
}

/** The link was for this password and this address: either changed since, and it is void. */
const stillFor = (token: AccountToken, user: User) => token.passwordFingerprint === fingerprint(user) && token.email === user.email;

export type AcceptOutcome = { ok: true; user: User } | { ok: false; reason: 'invalid-link' } | { ok: false; reason: 'password'; message: string };

class VoidLink extends Error {}

/**
 * Redeems the link and sets the password, in one transaction: the token is marked used by the UPDATE that
 * requires it unused (so of two parallel submissions exactly one wins), and the rest rolls back with it.
 */
export async function acceptInvitation(deps: Pick<InvitationDeps, 'store' | 'clock' | 'audit'>, token: string, password: string): Promise<AcceptOutcome> {
  try {
    checkPassword(password);
  } catch (error) {
    if (error instanceof AdminRuleError) return { ok: false, reason: 'password', message: error.message };
    throw error;
  }
  if (token.length === 0 || token.length > 200) return { ok: false, reason: 'invalid-link' };
  const passwordHash = await hashPassword(password);
  try {
    const user = await deps.store.transaction(async (tx) => {
      const redeemed = await tx.accountTokens.redeem(PURPOSE, sha256(token), new Date(deps.clock.now()));
      if (!redeemed) throw new VoidLink();
      const users = tx.users;
      const current = await users.findById(redeemed.userId);
      if (!current || !stillFor(redeemed, current)) throw new VoidLink();
      const updated = await users.update(current.id, { passwordHash, email_verified: true }, current.version);
      if (!updated) throw new VoidLink();
      await endUserAccess({ store: tx, clock: deps.clock }, updated.id);
      await deps.audit.emit(
        {
          type: 'user.invitation_accepted',
          actor: { kind: 'user', userId: updated.id },
          resource: 'user',
          resourceId: updated.id,
          subject: updated.id,
          changedFields: ['email_verified', 'password'],
          details: { invitation_id: redeemed.id },
        },
        { tx },
      );
      return updated;
    });
    return { ok: true, user };
  } catch (error) {
    if (error instanceof VoidLink) return { ok: false, reason: 'invalid-link' };
    throw error;
  }
}

/** Old links (used, revoked or expired a day ago) are deleted by a periodic job. */
export const INVITATION_PURGE_INTERVAL_MS = 3600_000;
export function purgeOldAccountTokens(deps: Pick<InvitationDeps, 'store' | 'clock'>): Promise<number> {
  return deps.store.accountTokens.purgeExpiredBefore(new Date(deps.clock.now() - 86_400_000));
}

export const invitationDeps = (core: {
  store: Store;
  clock: Clock;
  config: InvitationDeps['config'];
  audit: AuditSink;
  outbox: OutboxWriter;
}): InvitationDeps => ({
  store: core.store,
  clock: core.clock,
  config: core.config,
  audit: core.audit,
  outbox: core.outbox,
});
