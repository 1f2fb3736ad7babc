// /admin/v1/identity-providers schemas: one source for input shape (failures → 400), response serialisation
// and the OpenAPI document. Value rules are the service's (→ 422). No member ever holds a secret: only the
// name of the environment variable the server reads it from.
import { Type, type Static } from '@sinclair/typebox';
import { pageQueryProperties } from '../../http/pagination/index.js';

const Url = Type.String({ maxLength: 2048 });
const Names = (maxItems: number) => Type.Array(Type.String({ maxLength: 253 }), { maxItems });

const writable = {
  name: Type.Optional(Type.String({ maxLength: 100, description: 'Shown as "Continue with NAME"; presets name themselves' })),
  kind: Type.Optional(Type.Union([Type.Literal('oidc'), Type.Literal('oauth2')])),
  preset: Type.Optional(Type.Union([Type.Literal('google'), Type.Literal('microsoft'), Type.Literal('github'), Type.Literal('gitlab')])),
  issuer: Type.Optional(Type.String({ maxLength: 2048, description: 'OIDC: endpoints come from its discovery document' })),
  client_id: Type.String({ maxLength: 512 }),
  client_secret_env: Type.String({ maxLength: 128, description: 'The NAME of the environment variable holding the client secret (never the secret)' }),
  scopes: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 50 })),
  domains: Type.Optional(Names(50)),
  tenants: Type.Optional(Names(50)),
  provision: Type.Optional(Type.Boolean({ description: 'Create a local user on a first sign-in (default false)' })),
  link: Type.Optional(Type.Union([Type.Literal('verified-email'), Type.Literal('never')])),
  authorization_endpoint: Type.Optional(Url),
  token_endpoint: Type.Optional(Url),
  userinfo_endpoint: Type.Optional(Url),
  emails_endpoint: Type.Optional(Url),
  token_endpoint_auth_method: Type.Optional(Type.Union([Type.Literal('client_secret_basic'), Type.Literal('client_secret_post')])),
  claims: Type.Optional(
    Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 128 }), { description: 'oauth2: local claim → upstream member (sub required)' }),
  ),
  trust_mfa: Type.Optional(Type.Boolean({ description: 'OIDC: an id_token whose amr says mfa satisfies the local second factor (default false)' })),
  store_tokens: Type.Optional(
    Type.Boolean({ description: "Keep the upstream's access and refresh tokens, sealed, per linked identity (default false; false deletes them)" }),
  ),
  enabled: Type.Optional(Type.Boolean()),
};

export const IdentityProviderInputSchema = Type.Object(writable, { additionalProperties: false });
export type IdentityProviderInputBody = Static<typeof IdentityProviderInputSchema>;

export const CreateIdentityProviderSchema = Type.Object(
  { slug: Type.Optional(Type.String({ maxLength: 63, description: 'The callback path segment; never changes' })), ...writable },
  { additionalProperties: false },
);
export type CreateIdentityProviderBody = Static<typeof CreateIdentityProviderSchema>;

const NullableUrl = Type.Union([Type.String(), Type.Null()]);
export const IdentityProviderSchema = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  kind: Type.String(),
  preset: Type.Optional(Type.String()),
  redirect_uri: Type.String({ description: 'Register this at the upstream' }),
  issuer: NullableUrl,
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  userinfo_endpoint: NullableUrl,
  emails_endpoint: Type.Optional(Type.String()),
  jwks_uri: Type.Optional(Type.String()),
  authorization_response_iss_parameter_supported: Type.Boolean(),
  client_id: Type.String(),
  client_secret_env: Type.String(),
  token_endpoint_auth_method: Type.String(),
  scopes: Type.Array(Type.String()),
  domains: Type.Array(Type.String()),
  tenants: Type.Optional(Type.Array(Type.String())),
  claims: Type.Record(Type.String(), Type.String()),
  provision: Type.Boolean(),
  link: Type.String(),
  trust_mfa: Type.Boolean(),
  store_tokens: Type.Boolean(),
  enabled: Type.Boolean(),
  updated_at: Type.String({ format: 'date-time' }),
});

export const IdentityProviderListSchema = Type.Object({
  data: Type.Array(IdentityProviderSchema),
  pagination: Type.Object({ limit: Type.Integer(), next_cursor: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean() }),
});

/** The id, or the slug. */
export const IdentityProviderParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const ListQuery = Type.Object({ limit: pageQueryProperties.limit, cursor: pageQueryProperties.cursor }, { additionalProperties: false });
