// Authorization codes: issued after consent (AuthorizationCodeIssuer, used by the interaction flow) and
// redeemed once by the authorization_code grant. A second redemption revokes the grant it created
// (RFC 6749 4.1.2: "SHOULD revoke (when possible) all tokens previously issued based on that code").
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { randomToken, sha256 } from '../../crypto/random.js';
import type { Store } from '../../storage/store.js';
import type { ConsumedCode, StoredCode } from '../../storage/repositories/authorization-codes-repository.js';
import type { IssuedAccessTokenRecord } from '../../storage/repositories/grants-repository.js';
import type { AuthorizationCodeInput, AuthorizationCodeIssuer } from './authorization-codes.js';
import { verifierMatches } from './pkce.js';

export type { AuthorizationCodeInput, AuthorizationCodeIssuer } from './authorization-codes.js';
export type { StoredCode } from '../../storage/repositories/authorization-codes-repository.js';

/** Written by the redemption itself, so an exchange is one database round trip. */
export interface RedemptionIssue {
  accessToken: IssuedAccessTokenRecord;
  /** The refresh token to start the family with, when the client is registered for refresh_token. */
  refreshTokenHash?: string;
  /** Thumbprint of the request's verified DPoP proof key: must match a code's dpop_jkt, binds the refresh token. */
  dpopJkt?: string | undefined;
}

export type Redemption =
  | ({ ok: true } & ConsumedCode)
  | { ok: false; reason: 'unknown' | 'expired' | 'other_client' }
  /** RFC 9449 10: the code is bound to a DPoP key the request did not prove; it stays unspent. */
  | { ok: false; reason: 'dpop_jkt'; grantId: string }
  /** A second use: the grant the first use created is revoked, with every token issued from it. */
  | { ok: false; reason: 'reused'; grantId: string };

/**
 * Who presents the code, as far as the token endpoint established it: an authenticated (confidential)
 * client, or a public client whose only proof is the PKCE code_verifier.
 */
export interface Presenter {
  authenticated: boolean;
  verifier?: string;
}

export interface AuthorizationCodeRedeemer {
  /**
   * Consumes the code for `clientId`. A second use revokes every token issued from it — but only when the
   * code's own client presents it (authenticated, or with the right verifier); anyone else learns nothing.
   */
  redeem(code: string, clientId: string, issue?: RedemptionIssue, presenter?: Presenter): Promise<Redemption>;
}

/** A stolen, already redeemed code must not let a stranger revoke the victim's tokens (a denial of service). */
const isOwner = (code: StoredCode, clientId: string, presenter: Presenter): boolean =>
  code.clientId === clientId && (presenter.authenticated || (presenter.verifier !== undefined && verifierMatches(presenter.verifier, code.codeChallenge)));

export interface AuthorizationCodesDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'AUTH_CODE_TTL' | 'REFRESH_TOKEN_ABSOLUTE_TTL' | 'REFRESH_TOKEN_IDLE_TTL'>;
}

/** 256 random bits, base64url: well above RFC 6749 10.10's and FAPI's 128-bit floor. */
const CODE_BYTES = 32;

export function authorizationCodes(deps: AuthorizationCodesDeps): AuthorizationCodeIssuer & AuthorizationCodeRedeemer {
  const { store, clock, config } = deps;
  const codes = store.authorizationCodes;
  const grants = store.grants;

  async function explainFailure(codeHash: string, clientId: string, presenter: Presenter, dpopJkt: string | undefined): Promise<Redemption> {
    const code = await codes.find(codeHash);
    if (!code) return { ok: false, reason: 'unknown' };
    if (code.redeemedAt !== null) {
      if (!isOwner(code, clientId, presenter)) return { ok: false, reason: 'other_client' };
      // Every token issued from this code is revoked. The winning redemption recorded its access token in
      // the same statement that consumed the code, so even a duplicate racing it revokes what it issued.
      await grants.revoke({ grantId: code.grantId });
      return { ok: false, reason: 'reused', grantId: code.grantId };
    }
    if (code.clientId !== clientId) return { ok: false, reason: 'other_client' };
    if (code.expiresAt.getTime() > clock.now() && code.dpopJkt !== null && code.dpopJkt !== dpopJkt)
      return { ok: false, reason: 'dpop_jkt', grantId: code.grantId };
    return { ok: false, reason: 'expired' };
  }

  return {
    async issue(input: AuthorizationCodeInput) {
      const code = randomToken(CODE_BYTES);
      await codes.insert(sha256(code), {
        grantId: randomUUID(),
        clientId: input.clientId,
        userId: input.userId,
        redirectUri: input.redirectUri,
        codeChallenge: input.codeChallenge,
        scope: [...input.scope],
        nonce: input.nonce ?? null,
        authTime: new Date(input.authTime * 1000),
        sessionId: input.sessionId ?? null,
        resource: input.resource ?? null,
        dpopJkt: input.dpopJkt ?? null,
        expiresAt: new Date(clock.now() + config.AUTH_CODE_TTL * 1000),
      });
      return code;
    },
    async redeem(code, clientId, issue, presenter = { authenticated: true }) {
      const codeHash = sha256(code);
      const consumed = await codes.consume(codeHash, clientId, {
        grantLifetimeSeconds: config.REFRESH_TOKEN_ABSOLUTE_TTL,
        ...(issue ? { accessToken: issue.accessToken } : {}),
        ...(issue?.refreshTokenHash ? { refresh: { tokenHash: issue.refreshTokenHash, idleSeconds: config.REFRESH_TOKEN_IDLE_TTL } } : {}),
        dpopJkt: issue?.dpopJkt,
      });
      return consumed ? { ok: true, ...consumed } : explainFailure(codeHash, clientId, presenter, issue?.dpopJkt);
    },
  };
}
