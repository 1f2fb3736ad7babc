// Forgotten passwords (issue 31; docs/email.md).
//
// The request (`requestPasswordReset`) does the same work whatever the address: it charges the
// recipient's hourly budget and writes one job row, and the page answers the same. Whether an account has
// that address is decided only by the job, after the response (`passwordResetJob`): for each account with
// it, a single-use link (account-links.ts: purpose password_reset, PASSWORD_RESET_TTL) is written with its
// mail to the outbox in one transaction; for an unknown address nothing is written. So neither the answer
// nor its timing can tell whether an account exists, and the response never waits for SMTP.
//
// The reset (`resetPassword`) sets the new password under the password rules in one transaction with:
// the link marked used (one UPDATE), every browser session, refresh token and unredeemed code ended, the
// account-wide second-factor failure count cleared, the audit event, and the "password changed" notice.
// It does not touch the second factors: the next sign-in still asks for one.
import type { JobHandler } from '../jobs/worker.js';
import { hashPassword } from '../crypto/passwords.js';
import { sha256 } from '../crypto/random.js';
import { checkPassword } from '../admin-services/users-service.js';
import { AdminRuleError } from '../admin-services/rule-error.js';
import { chooseLocale, isLocale } from '../mail/catalogue.js';
import { EMAIL_CHANNEL } from '../mail/email-channel.js';
import type { User } from '../storage/repositories/users-repository.js';
import { endUserAccess } from '../user-rules/end-user-access.js';
import { issueAccountLink, linkStillFor, plausibleToken } from './account-links.js';
import type { SelfServiceDeps } from './deps.js';
import { recipientBudgetAllows } from './mail-budgets.js';
import type { SecurityNotices } from './notices.js';

export const FORGOT_PATH = '/password/forgot';
export const RESET_PATH = '/password/reset';
export const PASSWORD_RESET_JOB = 'password-reset-mail';
const PURPOSE = 'password_reset';
const MAX_EMAIL = 254;

interface ResetJobPayload {
  email: string;
  locale: string;
  interaction?: string;
}

/** Everything the page does before answering; the same for an address with or without an account. */
export async function requestPasswordReset(
  deps: SelfServiceDeps,
  input: { email: string; acceptLanguage?: string | undefined; interaction?: string | undefined },
): Promise<void> {
  const email = input.email.trim();
  if (email === '' || email.length > MAX_EMAIL) return;
  if (!(await recipientBudgetAllows(deps.rateLimits, email))) return;
  const payload: ResetJobPayload = { email, locale: chooseLocale(input.acceptLanguage), ...(input.interaction ? { interaction: input.interaction } : {}) };
  await deps.jobs.enqueue(deps.store, PASSWORD_RESET_JOB, payload);
  deps.jobs.wake();
}

function resetLink(issuer: string, token: string, interaction: string | undefined): string {
  const query = new URLSearchParams({ token, ...(interaction ? { interaction } : {}) });
  return `${issuer}${RESET_PATH}?${query.toString()}`;
}

/** The job behind the page: a link for each account with the address, nothing for an unknown one. */
export function passwordResetJob(deps: SelfServiceDeps): JobHandler {
  return {
    async run(raw) {
      const payload = raw as ResetJobPayload;
      const locale = isLocale(payload.locale) ? payload.locale : chooseLocale();
      for (const { id } of await deps.store.selfService.usersWithEmail(payload.email)) {
        await deps.store.transaction(async (tx) => {
          const user = await tx.users.findById(id);
          if (!user?.email) return;
          const { token, issued } = await issueAccountLink(tx, {
            purpose: PURPOSE,
            user,
            email: user.email,
            now: deps.clock.now(),
            ttlSeconds: deps.config.PASSWORD_RESET_TTL,
          });
          await deps.outbox.enqueue(tx, {
            channel: EMAIL_CHANNEL,
            kind: 'password_reset',
            recipient: user.email,
            payload: { template: 'password_reset', locale, params: { username: user.username, minutes: Math.round(deps.config.PASSWORD_RESET_TTL / 60) } },
            secret: { link: resetLink(deps.config.ISSUER, token, payload.interaction) },
          });
          await deps.audit.emit(
            {
              type: 'user.password_reset_requested',
              actor: { kind: 'system' },
              resource: 'user',
              resourceId: user.id,
              subject: user.id,
              details: { token_id: issued.id, expires_at: issued.expiresAt.toISOString() },
            },
            { tx },
          );
        });
      }
    },
  };
}

/** The account a reset link is for, if it can still be used (for showing the page); never redeems it. */
export async function findUsableReset(deps: Pick<SelfServiceDeps, 'store' | 'clock'>, token: string): Promise<User | undefined> {
  if (!plausibleToken(token)) return undefined;
  const found = await deps.store.accountTokens.findUsable(PURPOSE, sha256(token), new Date(deps.clock.now()));
  if (!found) return undefined;
  const user = await deps.store.users.findById(found.userId);
  return user && linkStillFor(found, user) ? user : undefined;
}

export type ResetOutcome = { ok: true; user: User } | { ok: false; reason: 'invalid-link' } | { ok: false; reason: 'password'; message: string };

class VoidLink extends Error {}

export async function resetPassword(
  deps: SelfServiceDeps & { notices: SecurityNotices },
  input: { token: string; password: string; acceptLanguage?: string | undefined; traceId: string },
): Promise<ResetOutcome> {
  try {
    checkPassword(input.password);
  } catch (error) {
    if (error instanceof AdminRuleError) return { ok: false, reason: 'password', message: error.message };
    throw error;
  }
  if (!plausibleToken(input.token)) return { ok: false, reason: 'invalid-link' };
  const passwordHash = await hashPassword(input.password);
  try {
    const user = await deps.store.transaction(async (tx) => {
      // Single use: the UPDATE only matches an unused, unrevoked, unexpired token of this purpose.
      const redeemed = await tx.accountTokens.redeem(PURPOSE, sha256(input.token), new Date(deps.clock.now()));
      if (!redeemed) throw new VoidLink();
      const users = tx.users;
      const current = await users.findById(redeemed.userId);
      if (!current || !linkStillFor(redeemed, current)) throw new VoidLink();
      const updated = await users.update(current.id, { passwordHash }, current.version);
      if (!updated) throw new VoidLink();
      // Whoever held a session or a refresh token with the old password holds nothing now.
      await endUserAccess({ store: tx, clock: deps.clock, outbox: deps.outbox }, updated.id);
      // The owner proved the mailbox and chose a password: the account-wide count of wrong second-factor
      // codes starts again (the factors themselves stay, and are still asked for).
      await tx.secondFactorFailures.clear(updated.id);
      await deps.audit.emit(
        {
          type: 'user.password_reset',
          actor: { kind: 'user', userId: updated.id },
          resource: 'user',
          resourceId: updated.id,
          subject: updated.id,
          changedFields: ['password'],
          traceId: input.traceId,
          details: { token_id: redeemed.id },
        },
        { tx },
      );
      await deps.notices.send(tx, updated.id, 'password_changed', { acceptLanguage: input.acceptLanguage });
      return updated;
    });
    return { ok: true, user };
  } catch (error) {
    if (error instanceof VoidLink) return { ok: false, reason: 'invalid-link' };
    throw error;
  }
}
