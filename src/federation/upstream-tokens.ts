// `--store-tokens` (docs/federation.md): the upstream's tokens from a sign-in's token response, kept per
// federated identity for the operator's own calls to the upstream on the user's behalf. The access and refresh
// tokens are sealed under the key-encryption key (src/crypto/key-encryption.ts, as TOTP secrets and webhook
// secrets are) with the identity — provider and upstream subject — as additional data, so a sealed value
// cannot be moved onto another identity. Only the expiry, whether a refresh token is held and the scope are
// readable without the key. A provider without store_tokens never gets here: the callback hands over no tokens.
import type { Clock } from '../clock.js';
import type { KeyEncryption } from '../crypto/key-encryption.js';
import type { FederatedIdentityTokensRepository, StoredUpstreamTokens } from '../storage/repositories/federated-identity-tokens-repository.js';

/** What the token endpoint answered, as oauth4webapi returns it (only for a provider with store_tokens). */
export interface UpstreamTokenResponse {
  access_token: string;
  token_type: string;
  refresh_token?: string | undefined;
  expires_in?: number | undefined;
  scope?: string | undefined;
}

/** The secret part, once opened. */
export interface UpstreamTokens {
  accessToken: string;
  refreshToken: string | null;
  tokenType: string;
}

/**
 * Sealed, not yet written: what the confirmation page keeps on the interaction (as JSON) until the link exists.
 * `expiresAt` in epoch milliseconds.
 */
export interface SealedUpstreamTokens {
  providerId: string;
  subject: string;
  sealed: string;
  expiresAt: number | null;
  hasRefreshToken: boolean;
  scope: string | null;
}

const aad = (providerId: string, subject: string) => `federated-tokens:${providerId}:${subject}`;

/** Scope is not secret but is the upstream's text: bounded. */
const MAX_SCOPE = 2048;

export function sealUpstreamTokens(
  encryption: KeyEncryption,
  identity: { providerId: string; subject: string },
  response: UpstreamTokenResponse,
  now: number,
): SealedUpstreamTokens {
  const secret: UpstreamTokens = { accessToken: response.access_token, refreshToken: response.refresh_token ?? null, tokenType: response.token_type };
  const expiresIn = response.expires_in;
  return {
    providerId: identity.providerId,
    subject: identity.subject,
    sealed: encryption.seal(JSON.stringify(secret), aad(identity.providerId, identity.subject)),
    expiresAt:
      typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0 ? now + Math.floor(Math.min(expiresIn, 10 * 365 * 86_400)) * 1000 : null,
    hasRefreshToken: secret.refreshToken !== null,
    scope: typeof response.scope === 'string' ? response.scope.slice(0, MAX_SCOPE) : null,
  };
}

/** The operator's way back to the tokens (the server itself never uses them). Throws if the value was moved or altered. */
export function openUpstreamTokens(encryption: KeyEncryption, stored: Pick<StoredUpstreamTokens, 'providerId' | 'subject' | 'sealed'>): UpstreamTokens {
  return JSON.parse(encryption.open(stored.sealed, aad(stored.providerId, stored.subject))) as UpstreamTokens;
}

/** What the sign-in keeps (FederationFlowDeps.tokens): seal at the callback, write once the link exists. */
export interface UpstreamTokenKeeper {
  seal(identity: { providerId: string; subject: string }, response: UpstreamTokenResponse): SealedUpstreamTokens;
  /** Replaces the identity's stored tokens (nothing when its link is gone or its provider stopped storing them). */
  keep(sealed: SealedUpstreamTokens | undefined): Promise<void>;
}

export function upstreamTokenKeeper(deps: {
  encryption: KeyEncryption;
  repository: Pick<FederatedIdentityTokensRepository, 'put'>;
  clock: Clock;
}): UpstreamTokenKeeper {
  return {
    seal: (identity, response) => sealUpstreamTokens(deps.encryption, identity, response, deps.clock.now()),
    async keep(sealed) {
      if (!sealed) return;
      await deps.repository.put({ ...sealed, expiresAt: sealed.expiresAt === null ? null : new Date(sealed.expiresAt), storedAt: new Date(deps.clock.now()) });
    },
  };
}
