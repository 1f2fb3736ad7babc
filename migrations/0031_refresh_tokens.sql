-- Refresh tokens, by SHA-256 only, each in the family of one grant. Exactly one token of a live family has
-- rotated_at null; rotation sets it on the presented token and inserts the successor in one statement.
create table refresh_tokens (
  token_hash text primary key,
  grant_id text not null references oauth_grants (id) on delete cascade,
  created_at timestamptz not null,
  idle_expires_at timestamptz not null,
  rotated_at timestamptz,
  -- REFRESH_REUSE_GRACE only: the successor pair, sealed under a key derived from this (raw) token.
  sealed_successor text
);
create index refresh_tokens_grant_id on refresh_tokens (grant_id);
