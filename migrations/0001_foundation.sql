-- Foundation: the accounts that log in (also /v1/users), signing keys, revoked access tokens.

create table users (
  id text primary key default gen_random_uuid()::text,
  username text not null,
  password_hash text not null,
  name text,
  given_name text,
  family_name text,
  email text,
  email_verified boolean not null default false,
  phone_number text,
  phone_number_verified boolean not null default false,
  address jsonb,
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_username_key on users (lower(username));

-- Private JWKs are sealed with AES-256-GCM under the key-encryption key; public JWKs are published.
-- A key signs from activates_at until retires_at and stays in the JWKS until expires_at.
create table signing_keys (
  kid text primary key,
  alg text not null check (alg in ('ES256', 'RS256')),
  public_jwk jsonb not null,
  sealed_private_jwk text not null,
  created_at timestamptz not null default now(),
  activates_at timestamptz not null,
  retires_at timestamptz,
  expires_at timestamptz
);

-- Access tokens revoked before their exp, remembered by jti until they would have expired anyway.
create table revoked_access_tokens (
  jti text primary key,
  expires_at timestamptz not null,
  revoked_at timestamptz not null default now()
);
create index revoked_access_tokens_expires_at on revoked_access_tokens (expires_at);
