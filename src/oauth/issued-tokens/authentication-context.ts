// How the user authenticated, as tokens state it: RFC 8176 `amr` values and an OIDC Core 2 `acr` class.
// The sign-in records the amr beside its browser session (session_authentications); a code carries that
// session's id, so the code exchange reads it back. Two classes: a password alone, and with a second factor.
import type { Authentication } from './id-token.js';

export const ACR_PASSWORD = 'urn:gatehouse:acr:password';
export const ACR_MFA = 'urn:gatehouse:acr:mfa';
export const ACR_VALUES_SUPPORTED = [ACR_PASSWORD, ACR_MFA] as const;

/** The class an amr list reached. */
export const acrOf = (amr: readonly string[]): string => (amr.includes('mfa') ? ACR_MFA : ACR_PASSWORD);

export interface AuthenticationLookup {
  /** The sign-in of this browser session (by its id hash), while the session exists. */
  find(sessionId: string): Promise<Authentication | undefined>;
}

export function authenticationLookup(sessions: { findAmr(sessionHash: string): Promise<string[] | undefined> }): AuthenticationLookup {
  return {
    async find(sessionId) {
      const amr = await sessions.findAmr(sessionId);
      return amr && amr.length > 0 ? { amr, acr: acrOf(amr) } : undefined;
    },
  };
}
