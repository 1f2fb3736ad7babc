// The second factors of an account as the pages use them: whether one is required, verifying a code (TOTP
// or recovery code) with replay protection, TOTP enrollment that completes only after a correct code, and
// the recovery codes shown once. TOTP secrets are sealed under the key-encryption key (docs/secrets-storage.md)
// with the user id as additional data, so a sealed secret cannot be moved onto another account.
import type { Clock } from '../../clock.js';
import type { KeyEncryption } from '../../crypto/key-encryption.js';
import type { SealedTokensOfSignIn, SecondFactorsRepository, SessionProof } from '../../storage/repositories/second-factors-repository.js';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';
import { matchTotp, newTotpSecret, qrSvg, totpUri } from './totp.js';

/** RFC 8176 amr values of a password followed by a one-time code. */
export const AMR_PASSWORD = ['pwd'] as const;
const AMR_PASSWORD_AND_OTP = ['pwd', 'otp', 'mfa'] as const;

export type CodeOutcome = { ok: true; amr: string[] } | { ok: false; reason: 'wrong_otp' | 'replayed_otp' | 'wrong_recovery_code' | 'no_code' };

export interface TotpEnrollment {
  secret: string;
  uri: string;
  svg: string;
}

export interface SecondFactorStatus {
  totp: 'none' | 'pending' | 'active';
  recoveryCodes: number;
  /** Registered passkeys (passkeys/passkeys.ts): each is a second factor too. */
  passkeys: number;
}

export interface SecondFactors {
  /** A user with an active second factor always completes it. */
  required(userId: string): Promise<boolean>;
  status(userId: string): Promise<SecondFactorStatus>;
  /** Checks a TOTP code (`otp`) or else a recovery code; each is accepted at most once. */
  verify(userId: string, input: { otp?: string | undefined; recoveryCode?: string | undefined }): Promise<CodeOutcome>;
  /** A new secret waiting for its first code; undefined when an authenticator is already active. */
  beginTotp(user: { id: string; username: string }): Promise<TotpEnrollment | undefined>;
  /** The pending enrollment's QR code and URI again (the page reloaded); undefined when none is pending. */
  pendingTotp(user: { id: string; username: string }): Promise<TotpEnrollment | undefined>;
  /** Activates the pending enrollment if `code` is right; returns the new recovery codes (shown once). */
  confirmTotp(userId: string, code: string): Promise<string[] | undefined>;
  regenerateRecoveryCodes(userId: string): Promise<string[]>;
  removeAll(userId: string): Promise<void>;
  /**
   * After the password: the session waits for this user's second factor, for one flow only. After an upstream
   * provider, `upstreamTokens` (--store-tokens, sealed) wait with it, to be written once the sign-in completes.
   */
  awaitSecondFactor(
    sessionHash: string,
    userId: string,
    boundTo: string,
    firstFactor?: readonly string[],
    upstreamTokens?: SealedTokensOfSignIn,
  ): Promise<void>;
  /** The user whose second factor this session is waiting for in this flow, if any. */
  pendingUser(sessionHash: string, boundTo: string): Promise<string | undefined>;
  /**
   * Single use: ends the wait (only one parallel request gets it), with the first factor's amr when it was not the
   * password (federation: ['fed']) and the upstream tokens waiting with it, for completeSignIn to keep.
   */
  consumePendingSignIn(sessionHash: string, boundTo: string): Promise<PendingSignIn | undefined>;
  /** The RFC 8176 amr the session signed in with (undefined for sessions older than this record). */
  sessionAmr(sessionHash: string): Promise<string[] | undefined>;
  /** How the session last proved the account (sign-in amr, later re-authentication, a factor it bound). */
  sessionProof(sessionHash: string): Promise<SessionProof | undefined>;
  recordProof(sessionHash: string): Promise<void>;
  /** The session bound a new factor: the account page stays open to it, its amr does not change. */
  markBoundFactor(sessionHash: string): Promise<void>;
}

/** A second factor's wait, taken: whose, after which first factor, and the upstream tokens that wait on the sign-in. */
export interface PendingSignIn {
  userId: string;
  firstFactor: readonly string[] | null;
  upstreamTokens: SealedTokensOfSignIn | undefined;
}

/** How long a password stays accepted while the second factor is awaited. */
const PENDING_SECOND_FACTOR_SECONDS = 300;

export function secondFactors(deps: {
  repository: SecondFactorsRepository;
  encryption: KeyEncryption;
  clock: Clock;
  issuerName: string;
  passkeys: { count(userId: string): Promise<number> };
}): SecondFactors {
  const { repository, encryption, clock, issuerName, passkeys } = deps;
  const aad = (userId: string) => `totp:${userId}`;
  const enrollment = async (user: { id: string; username: string }, secret: string): Promise<TotpEnrollment> => {
    const uri = totpUri(secret, issuerName, user.username);
    return { secret, uri, svg: await qrSvg(uri) };
  };
  const issueRecoveryCodes = async (userId: string) => {
    const codes = newRecoveryCodes();
    await repository.replaceRecoveryCodes(
      userId,
      codes.map((code) => recoveryCodeHash(code)!),
    );
    return codes;
  };
  return {
    async required(userId) {
      return (await repository.findTotp(userId))?.confirmed === true || (await passkeys.count(userId)) > 0;
    },
    async status(userId) {
      const totp = await repository.findTotp(userId);
      return {
        totp: totp === undefined ? 'none' : totp.confirmed ? 'active' : 'pending',
        recoveryCodes: await repository.countRecoveryCodes(userId),
        passkeys: await passkeys.count(userId),
      };
    },
    async verify(userId, { otp, recoveryCode }) {
      if (otp !== undefined && otp.trim() !== '') {
        const credential = await repository.findTotp(userId);
        if (!credential?.confirmed) return { ok: false, reason: 'wrong_otp' };
        const step = matchTotp(encryption.open(credential.secretSealed, aad(userId)), otp, clock);
        if (step === undefined) return { ok: false, reason: 'wrong_otp' };
        // RFC 6238 5.2: a code already accepted (or an older one) is refused, in one conditional update.
        if (!(await repository.useTotpStep(userId, step))) return { ok: false, reason: 'replayed_otp' };
        return { ok: true, amr: [...AMR_PASSWORD_AND_OTP] };
      }
      if (recoveryCode !== undefined && recoveryCode.trim() !== '') {
        const hash = recoveryCodeHash(recoveryCode.slice(0, 64));
        if (hash === undefined || !(await repository.useRecoveryCode(userId, hash))) return { ok: false, reason: 'wrong_recovery_code' };
        return { ok: true, amr: [...AMR_PASSWORD_AND_OTP] };
      }
      return { ok: false, reason: 'no_code' };
    },
    async beginTotp(user) {
      const secret = newTotpSecret();
      if (!(await repository.beginTotp(user.id, encryption.seal(secret, aad(user.id))))) return undefined;
      return enrollment(user, secret);
    },
    async pendingTotp(user) {
      const credential = await repository.findTotp(user.id);
      if (!credential || credential.confirmed) return undefined;
      return enrollment(user, encryption.open(credential.secretSealed, aad(user.id)));
    },
    async confirmTotp(userId, code) {
      const credential = await repository.findTotp(userId);
      if (!credential || credential.confirmed) return undefined;
      const step = matchTotp(encryption.open(credential.secretSealed, aad(userId)), code, clock);
      if (step === undefined || !(await repository.confirmTotp(userId, step))) return undefined;
      return issueRecoveryCodes(userId);
    },
    regenerateRecoveryCodes: issueRecoveryCodes,
    removeAll: (userId) => repository.removeAll(userId),
    awaitSecondFactor: (sessionHash, userId, boundTo, firstFactor, upstreamTokens) =>
      repository.setPending(
        sessionHash,
        { userId, boundTo, firstFactor: firstFactor ?? null, upstreamTokens: upstreamTokens ?? null },
        PENDING_SECOND_FACTOR_SECONDS,
      ),
    async pendingUser(sessionHash, boundTo) {
      const pending = await repository.findPending(sessionHash);
      return pending?.boundTo === boundTo ? pending.userId : undefined;
    },
    async consumePendingSignIn(sessionHash, boundTo) {
      const pending = await repository.consumePending(sessionHash);
      return pending?.boundTo === boundTo
        ? { userId: pending.userId, firstFactor: pending.firstFactor ?? null, upstreamTokens: pending.upstreamTokens ?? undefined }
        : undefined;
    },
    sessionAmr: (sessionHash) => repository.findAmr(sessionHash),
    sessionProof: (sessionHash) => repository.findSessionProof(sessionHash),
    recordProof: (sessionHash) => repository.recordProof(sessionHash),
    markBoundFactor: (sessionHash) => repository.markBoundFactor(sessionHash),
  };
}

/**
 * The amr of a sign-in completed by a second factor: the code and passkey methods report a password first
 * (`pwd`); when the first factor was something else (an upstream provider: `fed`), that is what was proved.
 */
export function afterFirstFactor(amr: readonly string[], firstFactor: readonly string[] | null): string[] {
  if (!firstFactor) return [...amr];
  return [...new Set([...firstFactor, ...amr.filter((value) => value !== 'pwd')])];
}

/** Binds a pending second factor to one interaction (by its id hash) or to the account page. */
export const ACCOUNT_FLOW = 'account';
export const boundToInteraction = (interactionIdHash: string): string => `interaction:${interactionIdHash}`;
