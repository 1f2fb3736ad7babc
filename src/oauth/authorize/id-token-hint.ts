// id_token_hint (OIDC Core 3.1.2.1 at /authorize, RP-Initiated Logout 1.0 §2 at /logout): an id_token we
// issued, naming the client (aud) and the user (sub). Verified with jose against our own JWKS and issuer.
// An expired hint is still accepted for as long as a login session may last, because RPs present it long
// after the id_token's exp (RP-Initiated Logout §4). Only our id_tokens are hints: the protected header's `typ`
// must be `JWT`, which id-token.ts sets, so an access token (`at+jwt`, signed by the same keys, its `aud`
// possibly a client's id) is no hint (RFC 8725 §3.11: the header names the kind; the claims set carries no
// `typ`). docs/security/tokens-and-operator-views.md
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';

export interface IdTokenHint {
  clientId: string;
  sub: string;
}

export async function verifyIdTokenHint(
  hint: string,
  deps: { jwks: () => Promise<JSONWebKeySet>; issuer: string; sessionTtlSeconds: number },
): Promise<IdTokenHint | undefined> {
  try {
    const { payload } = await jwtVerify(hint, createLocalJWKSet(await deps.jwks()), {
      issuer: deps.issuer,
      algorithms: ['RS256', 'ES256'],
      typ: 'JWT',
      clockTolerance: deps.sessionTtlSeconds,
    });
    const aud = Array.isArray(payload.aud) ? payload.aud : payload.aud === undefined ? [] : [payload.aud];
    const clientId = aud.length === 1 ? aud[0] : typeof payload.azp === 'string' ? payload.azp : undefined;
    if (!clientId || typeof payload.sub !== 'string') return undefined;
    return { clientId, sub: payload.sub };
  } catch {
    return undefined;
  }
}
