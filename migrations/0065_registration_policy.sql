-- Dynamic registration policy. An initial access token says which restricted grant types (client_credentials)
-- and which resource-API scopes a client registered with it may hold, and how many registrations it allows
-- (single use by default; one conditional update consumes a use, so parallel registrations cannot overspend it).
-- Tokens created before this migration become single-use with the default (strict) policy.
alter table initial_access_tokens
  add column uses_left integer not null default 1 check (uses_left >= 0),
  add column allowed_grant_types text[] not null default '{}',
  add column allowed_scopes text[] not null default '{}';

-- A dynamically registered client keeps the policy it was registered under, so an RFC 7592 update cannot
-- widen it after the token is spent. Clients registered earlier keep what they already hold.
alter table clients
  add column registration_grant_types text[],
  add column registration_scopes text[];
update clients set registration_grant_types = grant_types, registration_scopes = scopes where registration_token_hash is not null;
