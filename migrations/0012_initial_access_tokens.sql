-- RFC 7591 3: initial access tokens guarding POST /register (created by `gatehouse registration-token create`).
-- Only the SHA-256 of the token is stored.
create table initial_access_tokens (
  token_hash text primary key,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
