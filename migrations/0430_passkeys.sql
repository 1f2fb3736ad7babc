-- Passkeys (WebAuthn Level 3; docs/second-factors.md).
-- One row per registered credential. credential_id is the authenticator's credential id (base64url); the
-- public key is the COSE key the attestation carried (base64url). sign_count is the last signature counter
-- seen (WebAuthn 6.1.1): an assertion whose counter does not grow, when either is non-zero, is refused.
create table passkey_credentials (
  credential_id text primary key,
  user_id text not null references users (id) on delete cascade,
  public_key text not null,
  sign_count bigint not null,
  transports text[] not null default '{}',
  device_type text not null,
  name text not null,
  created_at timestamptz not null,
  last_used_at timestamptz
);
create index passkey_credentials_user on passkey_credentials (user_id);

-- Outstanding WebAuthn challenges. Each is bound to one flow (`bound_to`: an interaction, or the account
-- page's session) and one purpose, lives a few minutes, and is deleted by the one statement that uses it,
-- so a replayed or concurrent second use of the same challenge finds nothing. One per flow and purpose:
-- asking again replaces it, so a flow cannot pile up challenges.
create table webauthn_challenges (
  bound_to text not null,
  purpose text not null,
  challenge text not null unique,
  user_id text references users (id) on delete cascade,
  expires_at timestamptz not null,
  primary key (bound_to, purpose)
);
create index webauthn_challenges_expiry on webauthn_challenges (expires_at);
