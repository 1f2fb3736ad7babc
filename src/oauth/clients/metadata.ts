// Client metadata validation (RFC 7591 2), shared by `gatehouse clients create` and POST /register so both
// paths enforce the same rules. Input uses the RFC 7591 names; the result is what the repository stores.
import {
  GRANT_TYPES,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type GrantType,
  type NewClient,
  type TokenEndpointAuthMethod,
} from '../../storage/repositories/clients-repository.js';
import { SIGNING_ALGS, type SigningAlg } from '../../crypto/keys.js';
import { parseScope } from '../../scopes.js';
import type { ResourceCatalogue } from '../resources/registry.js';
import { didYouMean } from '../../suggest.js';
import { redirectUriProblem } from './redirect-uris.js';
import { clientJwksProblem } from './client-keys.js';
import { adminScopeProblem } from '../admin-access.js';
import { checkedTarget, OutboundRefused, STRICT_OUTBOUND, type OutboundPolicy } from '../../http/outbound/outbound-policy.js';

export interface ClientMetadataInput {
  client_name?: unknown;
  redirect_uris?: unknown;
  post_logout_redirect_uris?: unknown;
  grant_types?: unknown;
  response_types?: unknown;
  token_endpoint_auth_method?: unknown;
  scope?: unknown;
  jwks?: unknown;
  jwks_uri?: unknown;
  id_token_signed_response_alg?: unknown;
  backchannel_logout_uri?: unknown;
  backchannel_logout_session_required?: unknown;
}

export type ClientMetadata = Omit<NewClient, 'id' | 'secretHash' | 'skipConsent' | 'registrationTokenHash' | 'registrationPolicy'>;

/** RFC 7591 3.2.2 error codes. */
export class ClientMetadataError extends Error {
  override readonly name = 'ClientMetadataError';
  constructor(
    readonly error: 'invalid_redirect_uri' | 'invalid_client_metadata',
    message: string,
  ) {
    super(message);
  }
}

const fail = (message: string): never => {
  throw new ClientMetadataError('invalid_client_metadata', message);
};

const stringList = (value: unknown, name: string): string[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return fail(`${name} must be an array of strings`);
  return [...new Set(value as string[])];
};

function uris(value: unknown, name: string): string[] {
  const list = stringList(value, name);
  for (const uri of list) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ClientMetadataError('invalid_redirect_uri', `${name}: ${uri} ${problem}`);
  }
  return list;
}

function grantTypes(value: unknown): GrantType[] {
  const list = value === undefined ? ['authorization_code'] : stringList(value, 'grant_types');
  if (list.length === 0) fail('grant_types must not be empty');
  for (const g of list) {
    if (!(GRANT_TYPES as readonly string[]).includes(g))
      fail(`grant type ${g} is not supported${didYouMean(g, GRANT_TYPES)}; supported: ${GRANT_TYPES.join(', ')}`);
  }
  return list as GrantType[];
}

function authMethod(value: unknown): TokenEndpointAuthMethod {
  const method = value ?? 'client_secret_basic';
  if (!TOKEN_ENDPOINT_AUTH_METHODS.includes(method as TokenEndpointAuthMethod))
    fail(`token_endpoint_auth_method must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}`);
  return method as TokenEndpointAuthMethod;
}

/** Registered scopes only (docs/resource-servers.md); operator-only ones by the operator, for a confidential service client. */
function scopes(value: unknown, catalogue: ResourceCatalogue, operator: boolean, serviceClient: boolean): string[] {
  if (value !== undefined && typeof value !== 'string') fail('scope must be a space-separated string');
  const list = parseScope(value as string | undefined);
  const supported = catalogue.publicScopes();
  for (const s of list) {
    if (!catalogue.isKnown(s) || (catalogue.isOperatorOnly(s) && !operator))
      fail(`scope ${s} is not supported${didYouMean(s, supported)}; supported: ${supported.join(' ')}`);
    if (catalogue.isOperatorOnly(s) && !serviceClient) fail(`scope ${s} is operator-only: it is granted to confidential clients by client_credentials only`);
  }
  return list;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') return fail(`${name} must be a non-empty string`);
  return value;
}

/** The server will fetch a jwks_uri, so it must not point into the server's own network (outbound-policy.ts). */
async function checkJwksUri(jwksUri: string, outbound: OutboundPolicy): Promise<void> {
  try {
    await checkedTarget(jwksUri, outbound);
  } catch (error) {
    if (error instanceof OutboundRefused) fail(`jwks_uri ${error.message}`);
    throw error;
  }
}

async function keySource(
  input: ClientMetadataInput,
  method: TokenEndpointAuthMethod,
  outbound: OutboundPolicy,
): Promise<Pick<ClientMetadata, 'jwks' | 'jwksUri'>> {
  const jwksUri = optionalString(input.jwks_uri, 'jwks_uri');
  if (input.jwks !== undefined && jwksUri !== undefined) fail('jwks and jwks_uri are mutually exclusive (RFC 7591 2)');
  if (jwksUri !== undefined) await checkJwksUri(jwksUri, outbound);
  if (input.jwks !== undefined) {
    const problem = await clientJwksProblem(input.jwks);
    if (problem) fail(problem);
  }
  if (method === 'private_key_jwt' && input.jwks === undefined && jwksUri === undefined) fail('private_key_jwt needs jwks or jwks_uri');
  return { jwks: (input.jwks as ClientMetadata['jwks']) ?? null, jwksUri: jwksUri ?? null };
}

export interface MetadataOptions {
  /** Where a jwks_uri may point (the app's Core.outbound); strict by default. */
  outbound?: OutboundPolicy;
  /** Where a backchannel_logout_uri may point: `outbound` plus the operator's internal receivers (WEBHOOK_ALLOWED_HOSTS). */
  receivers?: OutboundPolicy;
  /** The registered scopes a client may be given. */
  catalogue: ResourceCatalogue;
  /** `gatehouse clients create`: operator-only scopes may be given (never through /register). */
  operator?: boolean;
}

/**
 * OpenID Connect Back-Channel Logout 1.0, 2.2: an absolute https URI without a fragment (a query is kept) that
 * the server will POST logout tokens to — so under the same address rules as a jwks_uri, unless its host is
 * an allow-listed internal receiver. A name that does not resolve yet passes: each delivery checks again.
 */
async function backchannelLogout(
  input: ClientMetadataInput,
  receivers: OutboundPolicy,
): Promise<Pick<ClientMetadata, 'backchannelLogoutUri' | 'backchannelLogoutSessionRequired'>> {
  const uri = optionalString(input.backchannel_logout_uri, 'backchannel_logout_uri');
  const required = input.backchannel_logout_session_required;
  if (required !== undefined && required !== null && typeof required !== 'boolean') fail('backchannel_logout_session_required must be a boolean');
  if (uri !== undefined) {
    if (uri.length > 2048) fail('backchannel_logout_uri is too long');
    try {
      await checkedTarget(uri, receivers);
    } catch (error) {
      if (!(error instanceof OutboundRefused)) throw error;
      if (error.code !== 'resolution_failed') fail(`backchannel_logout_uri ${error.message}`);
    }
  }
  return { backchannelLogoutUri: uri ?? null, backchannelLogoutSessionRequired: required === true };
}

export async function validateClientMetadata(input: ClientMetadataInput, options: MetadataOptions): Promise<ClientMetadata> {
  const name = optionalString(input.client_name, 'client_name') ?? 'unnamed client';
  if (name.length > 200) fail('client_name is too long');
  const method = authMethod(input.token_endpoint_auth_method);
  const type = method === 'none' ? 'public' : 'confidential';
  const grants = grantTypes(input.grant_types);
  // A public client cannot keep a secret, so it cannot authenticate itself for a grant without a user (RFC 6749 4.4).
  if (type === 'public' && grants.includes('client_credentials')) fail('public clients cannot use client_credentials');
  const responseTypes = stringList(input.response_types, 'response_types');
  if (responseTypes.some((r) => r !== 'code')) fail('only the response type "code" is supported');
  const redirectUris = uris(input.redirect_uris, 'redirect_uris');
  if (grants.includes('authorization_code') && redirectUris.length === 0) {
    throw new ClientMetadataError('invalid_redirect_uri', 'authorization_code clients need at least one redirect URI');
  }
  const granted = scopes(input.scope, options.catalogue, options.operator === true, type === 'confidential' && grants.includes('client_credentials'));
  const adminProblem = adminScopeProblem({ type, grantTypes: grants, scopes: granted });
  if (adminProblem) fail(adminProblem);
  const alg = input.id_token_signed_response_alg ?? 'RS256';
  if (!SIGNING_ALGS.includes(alg as SigningAlg)) fail(`id_token_signed_response_alg must be one of ${SIGNING_ALGS.join(', ')}`);
  return {
    name,
    type,
    authMethod: method,
    redirectUris,
    postLogoutRedirectUris: uris(input.post_logout_redirect_uris, 'post_logout_redirect_uris'),
    grantTypes: grants,
    scopes: granted,
    ...(await keySource(input, method, options.outbound ?? STRICT_OUTBOUND)),
    idTokenSignedResponseAlg: alg as SigningAlg,
    ...(await backchannelLogout(input, options.receivers ?? options.outbound ?? STRICT_OUTBOUND)),
  };
}
