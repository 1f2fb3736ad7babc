// /admin/v1/resource-servers schemas: one source for input shape (failures → 400), response serialisation
// (the introspection client's id, never its secret, outside the create response) and the OpenAPI document.
// Value rules are the service's (→ 422).
import { Type, type Static } from '@sinclair/typebox';
import { MAX_IDENTIFIER_LENGTH } from '../../admin-services/resource-servers-service.js';

const ClaimNames = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 20 });
/** The attributes a scope releases into each token (docs/resource-servers.md, "Claims"). */
const ScopeClaims = Type.Object(
  { access_token: Type.Optional(ClaimNames), id_token: Type.Optional(ClaimNames) },
  { additionalProperties: false, description: 'User attributes this scope releases as claims, per token; left out on a write: the current mapping is kept' },
);

const ScopeInput = Type.Object(
  {
    name: Type.String({ maxLength: 64 }),
    description: Type.String({ maxLength: 200, description: 'Shown on the consent page' }),
    claims: Type.Optional(ScopeClaims),
  },
  { additionalProperties: false },
);

const writable = {
  name: Type.String({ maxLength: 200 }),
  scopes: Type.Array(ScopeInput, { maxItems: 100, description: 'Scope names are unique across all resource servers' }),
  access_token_ttl: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'Seconds (30 to ACCESS_TOKEN_TTL); null: ACCESS_TOKEN_TTL' })),
  offline_access: Type.Optional(Type.Boolean({ description: 'Whether a refresh may yield tokens for it (default true)' })),
  token_exchange_clients: Type.Optional(
    Type.Array(Type.String({ maxLength: 200 }), {
      maxItems: 50,
      description:
        'RFC 8693: the clients (confidential, registered for token exchange) that may exchange a user token into this audience; left out on a write: the current list is kept',
    }),
  ),
};

export const ResourceServerInputSchema = Type.Object(writable, { additionalProperties: false });
export type ResourceServerInputBody = Static<typeof ResourceServerInputSchema>;

export const CreateResourceServerSchema = Type.Object(
  {
    identifier: Type.String({
      maxLength: MAX_IDENTIFIER_LENGTH,
      description: 'Absolute https URI (http only on loopback), no fragment: the aud of its tokens',
    }),
    ...writable,
  },
  { additionalProperties: false },
);
export type CreateResourceServerBody = Static<typeof CreateResourceServerSchema>;

export const ResourceServerSchema = Type.Object({
  identifier: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), claims: Type.Optional(ScopeClaims) })),
  access_token_ttl: Type.Union([Type.Integer(), Type.Null()]),
  offline_access: Type.Boolean(),
  operator_only: Type.Boolean(),
  built_in: Type.Boolean({ description: 'Registered by Gatehouse itself; cannot be deleted' }),
  client_id: Type.Optional(Type.String({ description: 'Its credentials for /introspect' })),
  token_exchange_clients: Type.Array(Type.String(), { description: 'RFC 8693: the clients that may exchange a user token into this audience' }),
  resource_metadata: Type.String({
    description:
      'RFC 9728: the URL of its protected-resource metadata as Gatehouse serves it (the RFC 9728 3 address for an identifier on this origin, a copy for another host)',
  }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const CreatedResourceServerSchema = Type.Composite([
  ResourceServerSchema,
  Type.Object({ client_secret: Type.Optional(Type.String({ description: 'The introspection secret: shown once, only in this response' })) }),
]);
