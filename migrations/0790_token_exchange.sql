-- Token exchange (RFC 8693, docs/token-exchange.md).
--
-- Per resource server, the clients that may exchange a user's token INTO it (the policy of the target
-- audience; empty: nobody). Client ids are random, so an id left behind by a deleted client names no one.
alter table resource_servers add column token_exchange_clients text[] not null default '{}';
-- Per client: an exchange without an actor_token leaves out `act` (impersonation). Off unless an operator
-- turns it on; without it the calling client is named as the actor.
alter table clients add column token_exchange_impersonation boolean not null default false;

-- A delegation: one client acting for one user at one audience, under one grant (the sign-in and consent
-- the subject token came from), possibly below another delegation (the subject token was itself exchanged).
-- The user sees them on /account and revokes them there: the row is marked and every live token it (and
-- every delegation below it) issued goes to the revocation list; a revoked delegation refuses further
-- exchanges of the same grant, client, actor and audience. Revoking the grant (password change, app
-- revoked) reaches the exchanged tokens through grant_access_tokens, where each one is recorded too.
create table delegations (
  id text primary key,
  user_id text not null references users (id) on delete cascade,
  grant_id text not null references oauth_grants (id) on delete cascade,
  -- '' for a delegation made from a token of the grant itself; a key column, so never null.
  parent_id text not null default '',
  client_id text not null references clients (id) on delete cascade,
  -- act.sub of the issued tokens; '' when the client impersonates (no act).
  actor text not null,
  audience text not null,
  scope text[] not null,
  created_at timestamptz not null,
  last_exchanged_at timestamptz not null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  unique (grant_id, parent_id, client_id, actor, audience)
);
create index delegations_user_id on delegations (user_id);
create index delegations_parent_id on delegations (parent_id) where parent_id <> '';

-- Every access token issued by an exchange, by jti: revoking the delegation revokes them, and a token
-- presented as a subject token is traced back to its delegation (and grant) by its jti.
create table delegation_tokens (
  jti text primary key,
  delegation_id text not null references delegations (id) on delete cascade,
  expires_at timestamptz not null
);
create index delegation_tokens_delegation_id on delegation_tokens (delegation_id);
