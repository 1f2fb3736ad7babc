-- `--store-tokens` (docs/federation.md): an identity provider may be asked to keep the upstream's tokens of
-- each federated identity, for the operator's own calls to the upstream API on the user's behalf. Off unless
-- an operator turns it on; then nothing of the upstream tokens is written anywhere.
alter table identity_providers add column store_tokens boolean not null default false;

-- The tokens of the last sign-in of one federated identity, replaced at each. `sealed` is the access token,
-- the refresh token (if any) and the token type, as JSON sealed with AES-256-GCM under the key-encryption key,
-- with the identity (provider, subject) as additional data: a sealed value cannot be moved onto another
-- identity (src/federation/upstream-tokens.ts, docs/secrets-storage.md). The rest is not secret and is shown
-- to operators: when the access token expires, whether a refresh token is held, the scope granted.
-- Removing the link (or its provider, or its user) removes them; turning store_tokens off deletes them.
create table federated_identity_tokens (
  provider_id text not null,
  subject text not null,
  sealed text not null,
  expires_at timestamptz,
  has_refresh_token boolean not null,
  scope text,
  stored_at timestamptz not null,
  primary key (provider_id, subject),
  foreign key (provider_id, subject) references federated_identities (provider_id, subject) on delete cascade
);
