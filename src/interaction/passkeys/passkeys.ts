// Passkeys (WebAuthn Level 3) through @simplewebauthn/server: registration from the account page, and
// assertions as a second factor after the password or as a passwordless sign-in (docs/second-factors.md).
// Every ceremony's challenge is bound to one flow (an interaction, or the account page's session) and is
// consumed by the one statement that checks it, so a replayed or concurrent second use fails. The RP ID is
// the issuer's host and the only accepted origin is the issuer's origin (WebAuthn 7.1 steps 9 and 15, 7.2
// steps 13 and 15). Outcomes are values with stable reasons; the routes turn them into answers and logs.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { ChallengePurpose, PasskeyCredential, PasskeysRepository } from '../../storage/repositories/passkeys-repository.js';

/** How long a ceremony's challenge stays usable (also the browser's timeout). */
const PASSKEY_CHALLENGE_SECONDS = 300;
const MAX_PASSKEYS_PER_USER = 20;
const MAX_PASSKEY_NAME_LENGTH = 64;

export type PasskeyFailure =
  | 'malformed_response'
  | 'challenge_not_found'
  | 'unknown_credential'
  | 'credential_of_another_user'
  | 'user_handle_mismatch'
  | 'sign_counter_not_increased'
  | 'assertion_not_verified'
  | 'attestation_not_verified'
  | 'credential_already_registered'
  | 'too_many_passkeys';

export type AssertionOutcome = { ok: true; userId: string; amr: string[] } | { ok: false; reason: PasskeyFailure; detail?: string };
export type RegistrationOutcome = { ok: true; deviceType: string } | { ok: false; reason: PasskeyFailure; detail?: string };

export interface PasskeyCeremonies {
  registrationOptions(user: { id: string; username: string }, boundTo: string): Promise<PublicKeyCredentialCreationOptionsJSON>;
  register(user: { id: string }, boundTo: string, response: unknown, name: string): Promise<RegistrationOutcome>;
  /** Second factor (`userId` given: only that user's passkeys) or passwordless (any discoverable passkey, user verification required). */
  authenticationOptions(boundTo: string, userId: string | undefined): Promise<PublicKeyCredentialRequestOptionsJSON>;
  /** The owner of the credential an assertion names, before it is verified (to charge the right failure budget). */
  claimedUser(response: unknown): Promise<string | undefined>;
  authenticate(boundTo: string, response: unknown, userId: string | undefined): Promise<AssertionOutcome>;
  list(userId: string): Promise<PasskeyCredential[]>;
  count(userId: string): Promise<number>;
  remove(userId: string, credentialId: string): Promise<boolean>;
}

/** The user handle (WebAuthn 5.4.3) is the user id's bytes: no personal data, and it names the owner. */
const userHandle = (userId: string) => new TextEncoder().encode(userId);
const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** RFC 8176: a key bound to one authenticator is hardware-held (`hwk`); a synced passkey is a software key (`swk`). */
const keyAmr = (deviceType: string) => (deviceType === 'multiDevice' ? 'swk' : 'hwk');
/** After the password: something known, then something held. */
const passkeySecondFactorAmr = (deviceType: string): string[] => ['pwd', keyAmr(deviceType), 'mfa'];
/** Passwordless with user verification: the key held plus the PIN or biometric that unlocked it (two factors). */
const passkeyPasswordlessAmr = (deviceType: string): string[] => [keyAmr(deviceType), 'user', 'mfa'];

/** Storable, bounded text (PostgreSQL text cannot hold U+0000; control characters have no place in a name). */
const plainText = (value: string, max: number) =>
  value
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, max);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The credential id an assertion names, if it has the shape of one (the library checks the rest). */
function credentialIdOf(response: unknown): string | undefined {
  if (!isRecord(response) || typeof response.id !== 'string' || response.id.length > 1400) return undefined;
  return /^[A-Za-z0-9_-]+$/.test(response.id) ? response.id : undefined;
}

const failure = (reason: PasskeyFailure, error?: unknown) => ({
  ok: false as const,
  reason,
  ...(error instanceof Error ? { detail: error.message.slice(0, 200) } : {}),
});

export function passkeyCeremonies(deps: { repository: PasskeysRepository; issuer: string; rpName: string }): PasskeyCeremonies {
  const { repository } = deps;
  const origin = new URL(deps.issuer).origin;
  const rpID = new URL(deps.issuer).hostname;
  /** A challenge verifier that consumes the flow's challenge: true for exactly one use. */
  const consuming = (boundTo: string, purpose: ChallengePurpose, userId: string | undefined) => {
    let found = false;
    const check = async (challenge: string) => {
      const issued = await repository.consumeChallenge(challenge, boundTo, purpose);
      found = issued !== undefined && issued.userId === userId;
      return found;
    };
    return { check, found: () => found };
  };

  return {
    async registrationOptions(user, boundTo) {
      const existing = await repository.list(user.id);
      const options = await generateRegistrationOptions({
        rpName: deps.rpName,
        rpID,
        userName: user.username,
        userID: userHandle(user.id),
        timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
        attestationType: 'none',
        // Discoverable credentials make the passwordless sign-in possible; user verification makes it two factors.
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
        excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports as never })),
      });
      await repository.issueChallenge({ challenge: options.challenge, boundTo, purpose: 'register', userId: user.id }, PASSKEY_CHALLENGE_SECONDS);
      return options;
    },

    async register(user, boundTo, response, name) {
      if (!isRecord(response)) return failure('malformed_response');
      const challenge = consuming(boundTo, 'register', user.id);
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verified = await verifyRegistrationResponse({
          response: response as unknown as RegistrationResponseJSON,
          expectedChallenge: challenge.check,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: false,
        });
      } catch (error) {
        return failure(challenge.found() ? 'attestation_not_verified' : 'challenge_not_found', error);
      }
      if (!verified.verified) return failure('attestation_not_verified');
      if ((await repository.count(user.id)) >= MAX_PASSKEYS_PER_USER) return failure('too_many_passkeys');
      const { credential, credentialDeviceType } = verified.registrationInfo;
      const added = await repository.add({
        credentialId: credential.id,
        userId: user.id,
        publicKey: base64url(credential.publicKey),
        signCount: credential.counter,
        transports: (credential.transports ?? []).slice(0, 8).map((t) => plainText(String(t), 32)),
        deviceType: credentialDeviceType,
        name: plainText(name, MAX_PASSKEY_NAME_LENGTH) || 'Passkey',
      });
      return added ? { ok: true, deviceType: credentialDeviceType } : failure('credential_already_registered');
    },

    async authenticationOptions(boundTo, userId) {
      const allow = userId === undefined ? undefined : await repository.list(userId);
      const options = await generateAuthenticationOptions({
        rpID,
        timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
        userVerification: userId === undefined ? 'required' : 'preferred',
        ...(allow ? { allowCredentials: allow.map((c) => ({ id: c.credentialId, transports: c.transports as never })) } : {}),
      });
      await repository.issueChallenge({ challenge: options.challenge, boundTo, purpose: 'authenticate', userId }, PASSKEY_CHALLENGE_SECONDS);
      return options;
    },

    async claimedUser(response) {
      const id = credentialIdOf(response);
      return id === undefined ? undefined : (await repository.find(id))?.userId;
    },

    async authenticate(boundTo, response, userId) {
      const id = credentialIdOf(response);
      if (id === undefined || !isRecord(response)) return failure('malformed_response');
      const credential = await repository.find(id);
      if (!credential) return failure('unknown_credential');
      // A second factor must be the password's own account; a passwordless sign-in is whoever owns the key.
      if (userId !== undefined && credential.userId !== userId) return failure('credential_of_another_user');
      const handle = isRecord(response.response) ? response.response.userHandle : undefined;
      if (handle !== undefined && handle !== base64url(userHandle(credential.userId))) return failure('user_handle_mismatch');
      const challenge = consuming(boundTo, 'authenticate', userId);
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      try {
        verified = await verifyAuthenticationResponse({
          response: response as unknown as AuthenticationResponseJSON,
          expectedChallenge: challenge.check,
          expectedOrigin: origin,
          expectedRPID: rpID,
          credential: {
            id: credential.credentialId,
            publicKey: Buffer.from(credential.publicKey, 'base64url'),
            counter: credential.signCount,
            transports: credential.transports as never,
          },
          // Passwordless is two factors only with user verification (PIN or biometric), WebAuthn 7.2 step 17.
          requireUserVerification: userId === undefined,
        });
      } catch (error) {
        if (!challenge.found()) return failure('challenge_not_found', error);
        // WebAuthn 6.1.1: a counter that did not grow (unless both are 0) suggests a cloned authenticator.
        if (error instanceof Error && /counter/i.test(error.message)) return failure('sign_counter_not_increased', error);
        return failure('assertion_not_verified', error);
      }
      if (!verified.verified) return failure('assertion_not_verified');
      const { newCounter, credentialDeviceType } = verified.authenticationInfo;
      // The same rule again, in one conditional update: of two parallel assertions with one counter, one wins.
      if (!(await repository.recordUse(credential.credentialId, credential.signCount, newCounter))) return failure('sign_counter_not_increased');
      const amr = userId === undefined ? passkeyPasswordlessAmr(credentialDeviceType) : passkeySecondFactorAmr(credentialDeviceType);
      return { ok: true, userId: credential.userId, amr };
    },

    list: (userId) => repository.list(userId),
    count: (userId) => repository.count(userId),
    remove: (userId, credentialId) => repository.remove(userId, credentialId),
  };
}
