-- OAuth clients. Secrets are stored only as SHA-256 (they are random ≥ 256-bit values, so a fast hash is right).
create table clients (
  id text primary key,
  name text not null,
  type text not null check (type in ('confidential', 'public')),
  secret_hash text,
  token_endpoint_auth_method text not null
    check (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none')),
  redirect_uris text[] not null default '{}',
  post_logout_redirect_uris text[] not null default '{}',
  grant_types text[] not null,
  scopes text[] not null,
  jwks jsonb,
  jwks_uri text,
  id_token_signed_response_alg text not null default 'RS256',
  skip_consent boolean not null default false,
  -- RFC 7592: hash of the registration access token, for clients created through /register.
  registration_token_hash text,
  disabled boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
