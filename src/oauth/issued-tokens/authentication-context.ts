// How the user authenticated, as tokens state it: RFC 8176 `amr` values and an OIDC Core 2 `acr` class.
// The sign-in records the amr beside its browser session (session_authentications); a code carries that
// session's sid and the sign-in's auth_time, so the code exchange reads it back. Two classes: a password alone, and with a second factor.
import type { Authentication } from './id-token.js';

export const ACR_PASSWORD = 'urn:gatehouse:acr:password';
export const ACR_MFA = 'urn:gatehouse:acr:mfa';
export const ACR_VALUES_SUPPORTED = [ACR_PASSWORD, ACR_MFA] as const;

/** The class an amr list reached. */
export const acrOf = (amr: readonly string[]): string => (amr.includes('mfa') ? ACR_MFA : ACR_PASSWORD);

export interface AuthenticationLookup {
  /** The sign-in at `authTime` of this browser session (by its sid), while the session still holds it. */
  find(sid: string, authTime: Date): Promise<Authentication | undefined>;
}

export function authenticationLookup(sessions: { findAmrOfSignIn(sid: string, authTime: Date): Promise<string[] | undefined> }): AuthenticationLookup {
  return {
    async find(sid, authTime) {
      const amr = await sessions.findAmrOfSignIn(sid, authTime);
      return amr && amr.length > 0 ? { amr, acr: acrOf(amr) } : undefined;
    },
  };
}
