// Sign-up (issue 31; SIGNUP=open; docs/email.md).
//
// The request (`requestSignup`) does the same work whatever the address: the password is hashed (argon2id,
// the expensive part) and one sign-up row with its job is written — also when the address already has an
// account, so neither the answer nor its timing tells. The job decides after the response: for an address
// that has an account it deletes the row and tells that account "someone tried to sign up with your
// address"; otherwise it mails a verification link (256 random bits, SHA-256 stored, EMAIL_VERIFICATION_TTL).
//
// The account is created only when the link is followed (`completeSignup`): one DELETE … RETURNING takes
// the row (single use, also under parallel submissions) and the account is created with email_verified =
// true in the same transaction — so an unverified address never becomes an account, and `email_verified`
// becomes true only through the link. The sign-up then continues the authorization request it began in
// (the row keeps its interaction id). Unverified rows are deleted once expired (`purgeExpiredSignups`).
import type { JobHandler } from '../jobs/worker.js';
import { hashPassword } from '../crypto/passwords.js';
import { randomToken, sha256 } from '../crypto/random.js';
import { checkPassword } from '../admin-services/users-service.js';
import { AdminRuleError } from '../admin-services/rule-error.js';
import { chooseLocale, isLocale } from '../mail/catalogue.js';
import { EMAIL_CHANNEL } from '../mail/email-channel.js';
import { mailMode } from '../mail/mail-mode.js';
import { UsernameTakenError, type User } from '../storage/repositories/users-repository.js';
import { MAIL_ADDRESS } from '../config/mail-settings.js';
import type { SelfServiceDeps } from './deps.js';
import { recipientBudgetAllows } from './mail-budgets.js';
import { FORGOT_PATH } from './password-reset.js';

export const SIGNUP_PATH = '/signup';
export const SIGNUP_VERIFY_PATH = '/signup/verify';
export const SIGNUP_JOB = 'signup-mail';
/** Usernames are at most 64 characters (users-service.ts); the account's username is its address. */
const MAX_SIGNUP_EMAIL = 64;

export const signupOpen = (deps: Pick<SelfServiceDeps, 'config'>) => deps.config.SIGNUP === 'open' && mailMode(deps.config) !== 'off';

export type SignupInput = { email: string; name: string; password: string; acceptLanguage?: string | undefined; interaction?: string | undefined };
export type SignupCheck = { ok: true } | { ok: false; field: 'email' | 'name' | 'password'; message: string };

/** The rules of the form; none depends on whether an account exists. */
export function checkSignup(deps: Pick<SelfServiceDeps, 'config'>, input: Pick<SignupInput, 'email' | 'name' | 'password'>): SignupCheck {
  const email = input.email.trim();
  if (email.length > MAX_SIGNUP_EMAIL || !MAIL_ADDRESS.test(email) || !/^[A-Za-z0-9._@+-]+$/.test(email))
    return { ok: false, field: 'email', message: `Type an e-mail address of at most ${MAX_SIGNUP_EMAIL} characters.` };
  const domains = deps.config.SIGNUP_DOMAINS;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  if (domains.length > 0 && !domains.includes(domain))
    return { ok: false, field: 'email', message: `Sign-up is open to addresses at ${domains.join(', ')} only.` };
  if (input.name.length > 200 || /[\u0000-\u001f\u007f]/.test(input.name))
    return { ok: false, field: 'name', message: 'The name may have at most 200 characters.' };
  try {
    checkPassword(input.password);
  } catch (error) {
    if (error instanceof AdminRuleError) return { ok: false, field: 'password', message: `The password ${error.message}.` };
    throw error;
  }
  return { ok: true };
}

/** Everything the page does before answering (after checkSignup): the same for a new and a known address. */
export async function requestSignup(deps: SelfServiceDeps, input: SignupInput): Promise<void> {
  const email = input.email.trim();
  // Hashed for every request: an address with an account costs exactly what a new one costs.
  const passwordHash = await hashPassword(input.password);
  if (!(await recipientBudgetAllows(deps.rateLimits, email))) return;
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    const request = await tx.selfService.createSignup({
      email,
      name: input.name.trim() === '' ? null : input.name.trim(),
      passwordHash,
      interactionId: input.interaction ?? null,
      locale: chooseLocale(input.acceptLanguage),
      createdAt: new Date(now),
      expiresAt: new Date(now + deps.config.EMAIL_VERIFICATION_TTL * 1000),
    });
    await deps.jobs.enqueue(tx, SIGNUP_JOB, { request: request.id });
  });
  deps.jobs.wake();
}

/** The job: the verification link for a new address, the "someone tried" notice for a known one. */
export function signupJob(deps: SelfServiceDeps): JobHandler {
  return {
    async run(raw) {
      const id = String((raw as { request?: unknown }).request);
      await deps.store.transaction(async (tx) => {
        const requests = tx.selfService;
        const request = await requests.findSignup(id, new Date(deps.clock.now()));
        if (!request) return;
        const locale = isLocale(request.locale) ? request.locale : chooseLocale();
        const [holder] = await requests.usersWithEmail(request.email);
        const existing = holder ? await tx.users.findById(holder.id) : await tx.users.findByUsername(request.email);
        if (existing) {
          await requests.deleteSignup(id);
          await deps.outbox.enqueue(tx, {
            channel: EMAIL_CHANNEL,
            kind: 'signup_existing',
            recipient: request.email,
            payload: { template: 'signup_existing', locale, params: { username: existing.username, link: `${deps.config.ISSUER}${FORGOT_PATH}` } },
          });
          return;
        }
        const token = randomToken();
        if (!(await requests.setSignupToken(id, sha256(token)))) return; // a retried job: the mail was written
        await deps.outbox.enqueue(tx, {
          channel: EMAIL_CHANNEL,
          kind: 'signup_verification',
          recipient: request.email,
          payload: { template: 'signup_verification', locale, params: { hours: Math.round(deps.config.EMAIL_VERIFICATION_TTL / 3600) } },
          secret: { link: `${deps.config.ISSUER}${SIGNUP_VERIFY_PATH}?${new URLSearchParams({ token }).toString()}` },
        });
      });
    },
  };
}

/** The sign-up a link names, if it can still be completed (for showing the page); never redeems it. */
export async function findUsableSignup(deps: Pick<SelfServiceDeps, 'store' | 'clock'>, token: string) {
  if (token.length === 0 || token.length > 200) return undefined;
  return deps.store.selfService.findSignupByToken(sha256(token), new Date(deps.clock.now()));
}

export type SignupOutcome =
  | { ok: true; user: User; interaction: string | undefined }
  | { ok: false; reason: 'invalid-link' | 'exists'; interaction?: string | undefined };

class Taken extends Error {
  constructor(readonly interaction: string | undefined) {
    super('taken');
  }
}

export async function completeSignup(deps: SelfServiceDeps, token: string, traceId: string): Promise<SignupOutcome> {
  if (token.length === 0 || token.length > 200) return { ok: false, reason: 'invalid-link' };
  try {
    return await deps.store.transaction(async (tx) => {
      const request = await tx.selfService.redeemSignup(sha256(token), new Date(deps.clock.now()));
      if (!request) return { ok: false, reason: 'invalid-link' } as const;
      const interaction = request.interactionId ?? undefined;
      // An account may have taken the address since the mail was sent (an operator, another sign-up).
      if ((await tx.selfService.usersWithEmail(request.email)).length > 0) throw new Taken(interaction);
      const user = await tx.users
        .create({
          username: request.email,
          passwordHash: request.passwordHash,
          email: request.email,
          email_verified: true,
          ...(request.name ? { name: request.name } : {}),
        })
        .catch((error: unknown) => {
          throw error instanceof UsernameTakenError ? new Taken(interaction) : error;
        });
      await deps.audit.emit(
        {
          type: 'user.signed_up',
          actor: { kind: 'user', userId: user.id },
          resource: 'user',
          resourceId: user.id,
          subject: user.id,
          changedFields: ['email', 'email_verified', 'username', ...(request.name ? ['name'] : [])].sort(),
          traceId,
          details: { face: 'signup' },
        },
        { tx },
      );
      return { ok: true, user, interaction } as const;
    });
  } catch (error) {
    if (error instanceof Taken) {
      // The transaction rolled back: the link is used up all the same.
      await deps.store.selfService.redeemSignup(sha256(token), new Date(deps.clock.now()));
      return { ok: false, reason: 'exists', interaction: error.interaction };
    }
    throw error;
  }
}

export const purgeExpiredSignups = (deps: Pick<SelfServiceDeps, 'store' | 'clock'>) => deps.store.selfService.purgeExpiredSignups(new Date(deps.clock.now()));
