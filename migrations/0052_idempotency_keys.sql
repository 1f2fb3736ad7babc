-- Idempotency records (SPEC "Idempotency record"; draft-ietf-httpapi-idempotency-key-header).
-- Keys are scoped per client+user (principal_hash) and stored only as hashes. A row is `running`
-- while its request executes (owner = the reservation's random token, lease = locked_until) and
-- `completed` once the response (status, headers that matter, body bytes) is stored.
create table idempotency_keys (
  principal_hash text not null,
  key_hash text not null,
  request_hash text not null,
  state text not null check (state in ('running', 'completed')),
  owner_token text,
  locked_until timestamptz,
  response_status integer,
  response_headers jsonb,
  response_body bytea,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  primary key (principal_hash, key_hash)
);
create index idempotency_keys_expires_at on idempotency_keys (expires_at);
