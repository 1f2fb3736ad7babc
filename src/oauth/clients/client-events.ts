// Audit events of clients created or changed without an operator (docs/audit-log.md, docs/agents.md): no
// account acted, so the actor is `system` and who asked is in `details` — the initial access token's id, the
// registering address (its /64 for IPv6), or the metadata document's URL. What was made is the client id and
// what it may do: its redirect URIs, scopes, grant types and authentication method (never a secret).
import type { AuditEventInput, AuditEventType } from '../../audit/audit-events.js';
import type { Client, NewClient } from '../../storage/repositories/clients-repository.js';

type ClientEventType = Extract<AuditEventType, `client.${string}`>;

export function clientEvent(
  type: ClientEventType,
  client: Client,
  who: Record<string, string>,
  options: { traceId?: string; changedFields?: readonly string[] } = {},
): AuditEventInput {
  return {
    type,
    actor: { kind: 'system' },
    resource: 'client',
    resourceId: client.id,
    clientId: client.id,
    ...(options.changedFields ? { changedFields: options.changedFields } : {}),
    details: {
      ...who,
      redirect_uris: client.redirectUris.join(' '),
      scope: client.scopes.join(' '),
      grant_types: client.grantTypes.join(' '),
      token_endpoint_auth_method: client.authMethod,
    },
    ...(options.traceId ? { traceId: options.traceId } : {}),
  };
}

// The members a registration or a metadata document sets, by their RFC 7591 names; what an update compares.
const REGISTERED_FIELDS = {
  name: 'client_name',
  type: 'client_type',
  authMethod: 'token_endpoint_auth_method',
  redirectUris: 'redirect_uris',
  postLogoutRedirectUris: 'post_logout_redirect_uris',
  grantTypes: 'grant_types',
  scopes: 'scope',
  jwks: 'jwks',
  jwksUri: 'jwks_uri',
  idTokenSignedResponseAlg: 'id_token_signed_response_alg',
  backchannelLogoutUri: 'backchannel_logout_uri',
  backchannelLogoutSessionRequired: 'backchannel_logout_session_required',
  allowedOrigins: 'allowed_origins',
  defaultResource: 'default_resource',
  resources: 'resources',
  secretHash: 'client_secret',
} as const satisfies Partial<Record<keyof Client & keyof NewClient, string>>;

// jsonb does not keep an object's key order: compare with sorted keys.
const canonical = (value: unknown): string =>
  JSON.stringify(value ?? null, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );

/** The (RFC 7591) names of the fields `next` would change in `current`; fields `next` leaves out are not compared. */
export function changedClientFields(current: Client, next: Partial<NewClient>): string[] {
  return (Object.keys(REGISTERED_FIELDS) as (keyof typeof REGISTERED_FIELDS)[])
    .filter((field) => next[field] !== undefined && canonical(next[field]) !== canonical(current[field]))
    .map((field) => REGISTERED_FIELDS[field]);
}
