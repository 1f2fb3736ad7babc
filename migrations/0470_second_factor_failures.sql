-- The account-wide second-factor budget (NIST SP 800-63B §5.2.2; docs/rate-limits.md): consecutive failed
-- (or not yet completed) TOTP / recovery-code attempts of an account, whatever address they came from, and
-- when the last one was charged. In PostgreSQL so that every instance sees one count and a stop lasts until
-- it is cleared (a sign-in with password and second factor, a factor reset, `gatehouse users reset-mfa`).
create table second_factor_failures (
  user_id text primary key references users (id) on delete cascade,
  consecutive integer not null,
  last_failure_at timestamptz not null
);
