-- Upstream identity providers users may sign in with (issue 30, docs/federation.md): OpenID Connect
-- providers (endpoints from their discovery document) and plain OAuth 2.0 ones (endpoints and a claim
-- mapping given by hand). The client secret is never stored: only the NAME of the environment variable
-- that holds it, read when it is used.
create table identity_providers (
  id text primary key default gen_random_uuid()::text,
  -- The path segment of its callback ({ISSUER}/federation/SLUG/callback): one redirect URI per provider is
  -- the mix-up defence (RFC 9700 4.4), so a slug never changes.
  slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name text not null,
  kind text not null check (kind in ('oidc', 'oauth2')),
  preset text check (preset in ('google', 'microsoft', 'github', 'gitlab')),
  -- OIDC: the issuer identifier; for Microsoft's multi-tenant endpoints it holds `{tenantid}`, and each
  -- id_token's `iss` must equal it with the token's own `tid` put in (docs/federation.md). oauth2: null, or
  -- the `iss` its authorization responses carry (RFC 9207).
  issuer text,
  authorization_endpoint text not null,
  token_endpoint text not null,
  userinfo_endpoint text,
  -- GitHub-style: a list of {email, primary, verified}; the primary, if verified, is the user's e-mail.
  emails_endpoint text,
  jwks_uri text,
  -- Whether the upstream sends `iss` in its authorization responses (RFC 9207): then it must, and must match.
  authorization_response_iss boolean not null default false,
  client_id text not null,
  client_secret_env text not null,
  token_endpoint_auth_method text not null default 'client_secret_basic' check (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post')),
  scopes text[] not null,
  -- E-mail domains this provider claims (home-realm discovery), lower case.
  domains text[] not null default '{}',
  -- Microsoft multi-tenant only: the tenants (tid) allowed; empty = every tenant.
  tenants text[] not null default '{}',
  -- Local claim → upstream member (oauth2 kind; `sub` is required among them).
  claims jsonb not null default '{}',
  provision boolean not null default false,
  link text not null default 'verified-email' check (link in ('verified-email', 'never')),
  enabled boolean not null default true,
  version integer not null default 1,
  created_at timestamptz not null default date_trunc('milliseconds', now()),
  updated_at timestamptz not null default date_trunc('milliseconds', now())
);

-- A federated identity: (provider, upstream subject) linked to one local user. A user has at most one
-- identity per provider.
create table federated_identities (
  provider_id text not null references identity_providers (id) on delete cascade,
  subject text not null,
  user_id text not null references users (id) on delete cascade,
  -- The e-mail the upstream asserted at the last sign-in (shown on /account and to admins; never a key).
  email text,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  primary key (provider_id, subject),
  unique (provider_id, user_id)
);
create index federated_identities_user on federated_identities (user_id);

-- Which providers a client offers on its login page, by slug; null = every enabled provider.
alter table clients add column identity_providers text[];
