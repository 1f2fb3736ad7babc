-- Single-use links sent by e-mail (docs/email.md): an invitation today; password resets, e-mail verification
-- and e-mail changes later (issue 31). Only the SHA-256 of the token is stored. A token is bound to its
-- purpose and account, expires, is used at most once (the redeeming UPDATE requires used_at and revoked_at
-- to be null), and is refused once the password or the e-mail address it was issued for has changed
-- (password_fingerprint, email).
create table account_tokens (
  id text primary key default gen_random_uuid()::text,
  purpose text not null check (purpose ~ '^[a-z_]{1,40}$'),
  user_id text not null references users (id) on delete cascade,
  token_hash text not null unique,
  email text not null,
  password_fingerprint text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  revoked_at timestamptz
);
create index account_tokens_user on account_tokens (user_id, purpose);
-- The admin list of pending invitations (newest first) and the purge of old tokens.
create index account_tokens_purpose_created on account_tokens (purpose, created_at desc, id desc);
create index account_tokens_expires on account_tokens (expires_at);
