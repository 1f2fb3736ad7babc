// Changing the e-mail address on /account (issue 31; docs/email.md). The new address is verified before it
// replaces the old one: the request (signed in, with a fresh proof — the REAUTH rule) mails a single-use
// link to the NEW address (account-links.ts: purpose email_change, EMAIL_VERIFICATION_TTL, void once the
// password or the current address changed); following it sets the address with email_verified = true and
// tells the OLD address, in one transaction. Every link issued under the old address (a password reset,
// another change) is void from then on, since the address is part of what a link is bound to.
import type { FastifyInstance } from 'fastify';
import { sha256 } from '../crypto/random.js';
import { escapeHtml } from '../http/html.js';
import { checkSameOrigin } from '../interaction/csrf.js';
import { MAIL_ADDRESS } from '../config/mail-settings.js';
import { chooseLocale } from '../mail/catalogue.js';
import { EMAIL_CHANNEL } from '../mail/email-channel.js';
import type { User } from '../storage/repositories/users-repository.js';
import { issueAccountLink, linkStillFor, plausibleToken } from './account-links.js';
import type { SelfServiceDeps } from './deps.js';
import { recipientBudgetAllows } from './mail-budgets.js';
import type { SecurityNotices } from './notices.js';
import { field, hidden, linkButton, pageRoute, sendSelfServicePage, type Form } from './page.js';

const EMAIL_VERIFY_PATH = '/email/verify';
const PURPOSE = 'email_change';

export type EmailChangeRequest = 'sent' | 'invalid' | 'same';

/** Mails the link to the new address (unless its hourly budget is spent: then nothing, and the page says "sent" all the same). */
export async function requestEmailChange(
  deps: SelfServiceDeps,
  input: { user: User; email: string; acceptLanguage?: string | undefined; traceId: string },
): Promise<EmailChangeRequest> {
  const email = input.email.trim();
  if (email.length > 254 || !MAIL_ADDRESS.test(email)) return 'invalid';
  if (email.toLowerCase() === (input.user.email ?? '').toLowerCase() && input.user.email_verified) return 'same';
  if (!(await recipientBudgetAllows(deps.rateLimits, email))) return 'sent';
  await deps.store.transaction(async (tx) => {
    const { token, issued } = await issueAccountLink(tx, {
      purpose: PURPOSE,
      user: input.user,
      email,
      now: deps.clock.now(),
      ttlSeconds: deps.config.EMAIL_VERIFICATION_TTL,
    });
    await deps.outbox.enqueue(tx, {
      channel: EMAIL_CHANNEL,
      kind: 'email_change_verification',
      recipient: email,
      payload: {
        template: 'email_change_verification',
        locale: chooseLocale(input.acceptLanguage),
        params: { username: input.user.username, hours: Math.round(deps.config.EMAIL_VERIFICATION_TTL / 3600) },
      },
      secret: { link: `${deps.config.ISSUER}${EMAIL_VERIFY_PATH}?${new URLSearchParams({ token }).toString()}` },
    });
    await deps.audit.emit(
      {
        type: 'account.email_change_requested',
        actor: { kind: 'user', userId: input.user.id },
        subject: input.user.id,
        traceId: input.traceId,
        details: { face: 'account', token_id: issued.id },
      },
      { tx },
    );
  });
  return 'sent';
}

async function usableChange(deps: Pick<SelfServiceDeps, 'store' | 'clock'>, token: string) {
  if (!plausibleToken(token)) return undefined;
  const found = await deps.store.accountTokens.findUsable(PURPOSE, sha256(token), new Date(deps.clock.now()));
  const user = found && (await deps.store.users.findById(found.userId));
  return found && user && linkStillFor(found, user) ? { token: found, user } : undefined;
}

class VoidLink extends Error {}

async function confirmEmailChange(
  deps: SelfServiceDeps & { notices: SecurityNotices },
  token: string,
  context: { acceptLanguage?: string | undefined; traceId: string },
): Promise<User | undefined> {
  if (!plausibleToken(token)) return undefined;
  try {
    return await deps.store.transaction(async (tx) => {
      const redeemed = await tx.accountTokens.redeem(PURPOSE, sha256(token), new Date(deps.clock.now()));
      if (!redeemed) throw new VoidLink();
      const users = tx.users;
      const current = await users.findById(redeemed.userId);
      if (!current || !linkStillFor(redeemed, current)) throw new VoidLink();
      const updated = await users.update(current.id, { email: redeemed.email, email_verified: true }, current.version);
      if (!updated) throw new VoidLink();
      await deps.audit.emit(
        {
          type: 'account.email_changed',
          actor: { kind: 'user', userId: updated.id },
          resource: 'user',
          resourceId: updated.id,
          subject: updated.id,
          changedFields: ['email', 'email_verified'],
          traceId: context.traceId,
          details: { face: 'account' },
        },
        { tx },
      );
      // The old address is told (it is the one an intruder would want to silence).
      if (current.email)
        await deps.notices.send(tx, updated.id, 'email_changed', {
          to: current.email,
          params: { email: redeemed.email },
          acceptLanguage: context.acceptLanguage,
        });
      return updated;
    });
  } catch (error) {
    if (error instanceof VoidLink) return undefined;
    throw error;
  }
}

const INVALID = `<h1>This link does not work any more</h1>
<p class="error" role="alert">It was used, has expired, or the account's password or address changed since it was sent.</p>
<p><a href="/account">Your account</a></p>`;

/** GET shows a button (mail scanners follow links), POST confirms; the link is the only authority. */
export function emailChangePages(app: FastifyInstance, deps: SelfServiceDeps & { notices: SecurityNotices }): void {
  app.get<{ Querystring: Record<string, unknown> }>(EMAIL_VERIFY_PATH, pageRoute, async (request, reply) => {
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    const found = await usableChange(deps, token);
    if (!found) return sendSelfServicePage(reply, deps.brand, 410, 'Link expired', INVALID);
    return sendSelfServicePage(
      reply,
      deps.brand,
      200,
      'Confirm your new e-mail address',
      `<h1>Confirm your new e-mail address</h1>
<p>Make <strong>${escapeHtml(found.token.email)}</strong> the address of the account <strong>${escapeHtml(found.user.username)}</strong>.</p>
<form method="post" action="${EMAIL_VERIFY_PATH}">${hidden('token', token)}
<button type="submit">Confirm the new address</button>
</form>`,
    );
  });

  app.post<{ Body: Form }>(EMAIL_VERIFY_PATH, pageRoute, async (request, reply) => {
    checkSameOrigin(request, deps.config.ISSUER);
    const user = await confirmEmailChange(deps, field(request.body, 'token'), { acceptLanguage: request.headers['accept-language'], traceId: request.id });
    if (!user) return sendSelfServicePage(reply, deps.brand, 410, 'Link expired', INVALID);
    return sendSelfServicePage(
      reply,
      deps.brand,
      200,
      'Address changed',
      `<h1>Your e-mail address is changed</h1>
<p class="notice" role="status">The account <strong>${escapeHtml(user.username)}</strong> now uses <strong>${escapeHtml(user.email ?? '')}</strong>. The previous address was told.</p>
${linkButton('/account', 'Your account')}`,
    );
  });
}
