// The shapes of `aud` our access tokens have (access-tokens.ts): the one resource the token is for, alone, or
// next to the issuer's /userinfo when a user granted `openid`. Anything else is no access token of ours.
// docs/token-formats.md, docs/security/tokens-and-operator-views.md
import { userinfoAudience } from '../../scopes.js';

/** The resource a token's `aud` names (never the /userinfo audience), or undefined for any other shape. */
export function resourceOfAudience(aud: unknown, issuer: string): string | undefined {
  const userinfo = userinfoAudience(issuer);
  if (typeof aud === 'string') return aud === userinfo ? undefined : aud;
  if (!Array.isArray(aud) || aud.length !== 2 || !aud.includes(userinfo)) return undefined;
  const resource = aud.find((a) => a !== userinfo);
  return typeof resource === 'string' ? resource : undefined;
}

/** Whether the token was issued for /userinfo as well as its resource. */
export const namesUserinfo = (aud: string | string[], issuer: string): boolean => Array.isArray(aud) && aud.includes(userinfoAudience(issuer));
