// One grant = one module behind this interface (fosite's handler / node-oidc-provider's grant triple).
// /token authenticates the client, strips every parameter the grant did not declare, checks the client is
// registered for the grant type, and calls `handle`. It never switches on grant_type itself.
import type { Client, GrantType } from '../../storage/repositories/clients-repository.js';

/** RFC 6749 5.1 token response (plus OIDC id_token). */
export interface TokenResponse {
  access_token: string;
  /** RFC 8693 2.2.1: what a token exchange issued (always an access token here). */
  issued_token_type?: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  refresh_token?: string;
  id_token?: string;
  scope: string;
}

export interface GrantContext {
  /** The authenticated confidential client, or the identified public client. */
  readonly client: Client;
  /** The grant's declared parameters only; each at most once (duplicates are refused before this). */
  readonly params: Readonly<Partial<Record<string, string>>>;
  /** RFC 9449: thumbprint of a verified DPoP proof's key, when the request carried one. */
  readonly dpopJkt?: string;
}

export interface Grant {
  readonly type: GrantType;
  /** Parameters this grant reads, besides grant_type and client authentication parameters. */
  readonly parameters: readonly string[];
  handle(context: GrantContext): Promise<TokenResponse>;
}
