-- Authorization grants: one row per redeemed authorization code. The grant is the refresh-token family
-- (RFC 9700 4.14.2) and the unit of revocation: code reuse (RFC 6749 4.1.2), refresh-token reuse,
-- /revoke of a refresh token, and deleting the client or the user all end a whole grant.
create table oauth_grants (
  id text primary key,
  client_id text not null references clients (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  scope text[] not null,
  auth_time timestamptz not null,
  session_id text,
  resource text,
  created_at timestamptz not null,
  -- The family's absolute limit, counted from the login (auth_time); rotation never extends it.
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index oauth_grants_client_id on oauth_grants (client_id);
create index oauth_grants_user_id on oauth_grants (user_id);

-- Every access token issued under a grant, by jti, so revoking the grant revokes them at once.
create table grant_access_tokens (
  jti text primary key,
  grant_id text not null references oauth_grants (id) on delete cascade,
  expires_at timestamptz not null
);
create index grant_access_tokens_grant_id on grant_access_tokens (grant_id);

-- Deleting a grant (directly, or by cascade from its client or user) revokes its live access tokens:
-- the rows above vanish with the grant, so their jtis move to the revocation list first.
create function revoke_grant_access_tokens() returns trigger language plpgsql as $$
begin
  insert into revoked_access_tokens (jti, expires_at, revoked_at)
    select jti, expires_at, now() from grant_access_tokens where grant_id = old.id and expires_at > now()
    on conflict (jti) do nothing;
  return old;
end;
$$;
create trigger oauth_grants_revoke_on_delete before delete on oauth_grants
  for each row execute function revoke_grant_access_tokens();

-- Authorization codes, by SHA-256 only. grant_id is chosen at issue time so a second redemption finds
-- the grant its first redemption created (the code row and the grant row are written by one statement).
create table authorization_codes (
  code_hash text primary key,
  grant_id text not null,
  client_id text not null references clients (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  redirect_uri text not null,
  code_challenge text not null,
  scope text[] not null,
  nonce text,
  auth_time timestamptz not null,
  session_id text,
  resource text,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  redeemed_at timestamptz
);
create index authorization_codes_expires_at on authorization_codes (expires_at);
