-- Re-authentication on /account (docs/security/account-factors.md): when this session last proved the
-- account again (the current password, or a second factor) after its sign-in, and whether it bound a second
-- factor itself. Binding never raises the session's amr (what tokens say): `bound_factor` only lets the
-- account page stay open to the session that just added the factor.
alter table session_authentications add column proved_at timestamptz;
alter table session_authentications add column bound_factor boolean not null default false;
