// /admin/v1/clients schemas: one source for input shape (failures → 400), response serialisation (which
// keeps every secret and hash out of reads) and the OpenAPI document. Value rules are the services' (→ 422).
import { Type, type Static } from '@sinclair/typebox';

const Strings = (description: string) => Type.Array(Type.String(), { description, maxItems: 50 });

const writable = {
  client_name: Type.Optional(Type.String({ description: 'Shown on the consent page', maxLength: 200 })),
  token_endpoint_auth_method: Type.Optional(
    Type.String({ description: 'client_secret_basic (default), client_secret_post, private_key_jwt, or none (public client)' }),
  ),
  grant_types: Type.Optional(Strings('authorization_code, refresh_token, client_credentials')),
  scope: Type.Optional(Type.String({ description: 'Space-separated; admin:read / admin:write only for confidential client_credentials-only clients' })),
  redirect_uris: Type.Optional(Strings('Required with authorization_code')),
  post_logout_redirect_uris: Type.Optional(Strings('RP-initiated logout targets')),
  jwks: Type.Optional(Type.Union([Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 20 }) }), Type.Null()])),
  jwks_uri: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  id_token_signed_response_alg: Type.Optional(Type.String({ description: 'RS256 (default) or ES256' })),
  skip_consent: Type.Optional(Type.Boolean({ description: 'First-party client: no consent page' })),
  require_mfa: Type.Optional(Type.Boolean({ description: 'Every sign-in for this client completes a second factor' })),
  allowed_origins: Type.Optional(Strings('Browser origins allowed to call the token endpoints with CORS')),
  disabled: Type.Optional(
    Type.Boolean({
      description:
        'true: the client is refused everywhere (invalid_client at /token, an error page at /authorize) and every token it holds stops working; false enables it again. Left out of a PUT: unchanged',
    }),
  ),
  identity_providers: Type.Optional(
    Type.Union([Strings('Slugs of the upstream identity providers its login page offers'), Type.Null()], {
      description: 'null (the default): every enabled provider',
    }),
  ),
  backchannel_logout_uri: Type.Optional(
    Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], {
      description:
        'OpenID Connect Back-Channel Logout: where logout tokens are POSTed (https on a public address, unless its host is in WEBHOOK_ALLOWED_HOSTS); null: none',
    }),
  ),
  backchannel_logout_session_required: Type.Optional(Type.Boolean({ description: 'Its logout tokens must carry sid (default false)' })),
};

export const ClientInputSchema = Type.Object(writable, { additionalProperties: false });
export type ClientInputBody = Static<typeof ClientInputSchema>;
export const WRITABLE_FIELDS = Object.keys(writable);

export const ClientSchema = Type.Object({
  client_id: Type.String(),
  client_name: Type.String(),
  client_type: Type.String(),
  token_endpoint_auth_method: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  post_logout_redirect_uris: Type.Array(Type.String()),
  grant_types: Type.Array(Type.String()),
  response_types: Type.Array(Type.String()),
  scope: Type.String(),
  jwks: Type.Optional(Type.Unknown()),
  jwks_uri: Type.Optional(Type.String()),
  id_token_signed_response_alg: Type.String(),
  skip_consent: Type.Boolean(),
  require_mfa: Type.Boolean(),
  allowed_origins: Type.Array(Type.String()),
  identity_providers: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'Slugs of the providers its login page offers; null: every enabled one',
  }),
  backchannel_logout_uri: Type.Optional(Type.String()),
  backchannel_logout_session_required: Type.Optional(Type.Boolean()),
  disabled: Type.Boolean(),
  built_in: Type.Boolean({ description: 'Registered by Gatehouse itself at each start (gatehouse-console, gatehouse-demo): read-only, a change is 409' }),
  provenance: Type.Union([Type.Literal('operator'), Type.Literal('dynamic_registration'), Type.Literal('self_registered'), Type.Literal('metadata_document')], {
    description:
      'Who made it: an operator, RFC 7591 registration with an initial access token, anonymous registration (REGISTRATION=open: a self-registered client, deleted when unused), or its Client ID Metadata Document (client_id is its URL)',
  }),
  resources: Type.Optional(
    Type.Array(Type.String(), { description: 'Self-registered and metadata-document clients: the only resources it may name (OPEN_CLIENT_RESOURCES)' }),
  ),
  previous_secret_expires_at: Type.Optional(
    Type.String({ format: 'date-time', description: 'After a rotation: when the previous secret stops being accepted' }),
  ),
  client_id_issued_at: Type.Integer(),
  updated_at: Type.String({ format: 'date-time' }),
});

export const CreatedClientSchema = Type.Composite([
  ClientSchema,
  Type.Object({ client_secret: Type.Optional(Type.String({ description: 'Shown once, only in this response' })) }),
]);

export const ClientParams = Type.Object({ id: Type.String({ maxLength: 200 }) });

export const RotateSecretSchema = Type.Object(
  {
    previous_secret_expires_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the current secret stops being accepted (default: at once; at most 30 days ahead)' }),
    ),
  },
  { additionalProperties: false },
);

export const RotatedSecretSchema = Type.Object({
  client_id: Type.String(),
  client_secret: Type.String({ description: 'Shown once, only in this response' }),
  previous_secret_expires_at: Type.String({ format: 'date-time' }),
});
