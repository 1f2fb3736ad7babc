// Registers a validated client. Confidential clients get a server-generated 256-bit secret, returned
// once; only its SHA-256 is stored (the secret is random, so a fast hash is right — argon2 is for passwords).
import { randomToken, sha256 } from '../../crypto/random.js';
import type { Client, ClientsRepository } from '../../storage/repositories/clients-repository.js';
import type { ClientMetadata } from './metadata.js';

export const MIN_IMPORTED_SECRET_LENGTH = 32;

export interface CreatedClient {
  client: Client;
  /** Plain secret, present only for clients that authenticate with one; never stored. */
  secret?: string;
}

export const usesSecret = (metadata: Pick<ClientMetadata, 'authMethod'>): boolean =>
  metadata.authMethod === 'client_secret_basic' || metadata.authMethod === 'client_secret_post';

export async function createClient(
  clients: Pick<ClientsRepository, 'create'>,
  metadata: ClientMetadata,
  options: {
    id?: string;
    skipConsent?: boolean;
    requireMfa?: boolean;
    tokenExchangeImpersonation?: boolean;
    identityProviders?: string[] | null;
    importedSecret?: string;
    registrationTokenHash?: string;
    registrationPolicy?: Client['registrationPolicy'];
  } = {},
): Promise<CreatedClient> {
  const secret = usesSecret(metadata) ? (options.importedSecret ?? randomToken(32)) : undefined;
  const client = await clients.create({
    ...metadata,
    id: options.id ?? newClientId(),
    secretHash: secret === undefined ? null : sha256(secret),
    skipConsent: options.skipConsent ?? false,
    requireMfa: options.requireMfa ?? false,
    tokenExchangeImpersonation: options.tokenExchangeImpersonation ?? false,
    identityProviders: options.identityProviders ?? null,
    registrationTokenHash: options.registrationTokenHash ?? null,
    registrationPolicy: options.registrationPolicy ?? null,
  });
  return secret === undefined ? { client } : { client, secret };
}

/**
 * A random client_id (128 bits, base64url) that never starts with "-": one in 64 would, and a command line
 * (`gatehouse clients delete ID`, curl -u) would read it as an option.
 */
export function newClientId(random: () => string = () => randomToken(16)): string {
  for (;;) {
    const id = random();
    if (!id.startsWith('-')) return id;
  }
}

/** The RFC 7591 3.2.1 view of a client (no secret hash). */
export function clientMetadataView(client: Client): Record<string, unknown> {
  return {
    client_id: client.id,
    client_name: client.name,
    client_type: client.type,
    token_endpoint_auth_method: client.authMethod,
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    grant_types: client.grantTypes,
    response_types: client.grantTypes.includes('authorization_code') ? ['code'] : [],
    scope: client.scopes.join(' '),
    ...(client.jwks ? { jwks: client.jwks } : {}),
    ...(client.jwksUri ? { jwks_uri: client.jwksUri } : {}),
    id_token_signed_response_alg: client.idTokenSignedResponseAlg,
    skip_consent: client.skipConsent,
    ...(client.requireMfa ? { require_mfa: true } : {}),
    ...(client.tokenExchangeImpersonation ? { token_exchange_impersonation: true } : {}),
    ...(client.allowedOrigins.length > 0 ? { allowed_origins: client.allowedOrigins } : {}),
    ...(client.defaultResource ? { default_resource: client.defaultResource } : {}),
    ...(client.backchannelLogoutUri
      ? { backchannel_logout_uri: client.backchannelLogoutUri, backchannel_logout_session_required: client.backchannelLogoutSessionRequired }
      : {}),
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
  };
}
