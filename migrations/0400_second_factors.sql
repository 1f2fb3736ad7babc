-- Second factors (docs/second-factors.md).
-- One TOTP authenticator per user (RFC 6238). The shared secret is sealed under the key-encryption key
-- (AES-256-GCM, the user id as additional data), because the server must read it back to compute codes.
-- confirmed_at is null while an enrollment waits for its first correct code. last_used_step is the time
-- step of the last accepted code: a code is accepted only for a later step, in one conditional update,
-- so a code cannot be replayed within its window, even by parallel requests (RFC 6238 5.2).
create table totp_credentials (
  user_id text primary key references users (id) on delete cascade,
  secret_sealed text not null,
  confirmed_at timestamptz,
  last_used_step bigint,
  created_at timestamptz not null
);

-- Single-use recovery codes: only sha256 of each (80 random bits) is stored; using one deletes it.
create table recovery_codes (
  user_id text not null references users (id) on delete cascade,
  code_hash text not null,
  created_at timestamptz not null,
  primary key (user_id, code_hash)
);

-- A password accepted for an account that has a second factor: the browser session waits for the second
-- factor of that user, for one flow (`bound_to`: an interaction's id hash, or 'account'), until expires_at.
-- Nothing is signed in until the second factor succeeds; then the row is consumed (single use).
create table pending_second_factors (
  session_hash text primary key references browser_sessions (id_hash) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  bound_to text not null,
  expires_at timestamptz not null
);

-- How a signed-in browser session authenticated (RFC 8176 amr values), kept beside the session.
create table session_authentications (
  session_hash text primary key references browser_sessions (id_hash) on delete cascade,
  amr text[] not null
);
