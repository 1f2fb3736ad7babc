-- Resource servers (APIs) the authorization server issues access tokens for (RFC 8707): the identifier is
-- the `aud` of their tokens. Each has its own confidential client (client_id) whose only use is /introspect;
-- deleting that client or the resource server removes both. docs/resource-servers.md
create table resource_servers (
  identifier text primary key,
  name text not null,
  -- Seconds; null = ACCESS_TOKEN_TTL. Never above it (key retention and revocation lists rely on that bound).
  access_token_ttl integer check (access_token_ttl is null or access_token_ttl > 0),
  offline_access boolean not null default true,
  -- Operator-only: its scopes are granted through `gatehouse clients create` alone, to confidential clients,
  -- by client_credentials (never by /register, never to a user's grant).
  operator_only boolean not null default false,
  client_id text unique references clients (id) on delete cascade,
  created_at timestamptz not null default now()
);

-- A scope belongs to exactly one resource server, so the scopes of a request name their audience.
create table resource_server_scopes (
  name text primary key,
  resource_server text not null references resource_servers (identifier) on delete cascade,
  description text not null,
  -- User attributes this scope releases: {"access_token": [...], "id_token": [...]} (the id_token list also
  -- feeds /userinfo). Reserved claims are never taken from attributes.
  claims jsonb not null default '{}',
  position integer not null default 0
);
create index resource_server_scopes_resource_server on resource_server_scopes (resource_server);

-- The audience of a token requested without `resource` when the scopes do not name one.
alter table clients add column default_resource text references resource_servers (identifier) on delete set null;

-- Custom user attributes (typed JSON values) that registered scopes can map into tokens.
alter table users add column attributes jsonb not null default '{}';
