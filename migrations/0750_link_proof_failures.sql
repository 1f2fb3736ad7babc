-- The account-wide budget for authenticator codes typed on the federation's link confirmation page
-- (docs/federation.md, docs/rate-limits.md): the same shape as second_factor_failures, kept apart from it.
-- Whoever controls an upstream provider that asserts the owner's verified e-mail reaches that page without
-- the account's password, so their wrong codes must never spend the count the owner's own sign-in uses.
-- Not cleared by the owner's sign-ins (each would buy the guesser another budget); only by replacing the
-- authenticator (its removal, `gatehouse users reset-mfa`), against whose secret the guesses were made.
create table link_proof_failures (
  user_id text primary key references users (id) on delete cascade,
  consecutive integer not null,
  last_failure_at timestamptz not null
);
