-- Sign-ups waiting for their e-mail address to be verified (issue 31; docs/email.md). The account is created
-- only when the link is followed, so an unverified address never becomes an account; a request is deleted
-- when its link is used, and by the hourly purge once it expired (bounded unverified sign-ups).
create table signup_requests (
  id text primary key default gen_random_uuid()::text,
  email text not null,
  name text,
  -- argon2id, hashed in the request (the password never reaches the job queue or a log).
  password_hash text not null,
  -- The authorization request the sign-up began in, continued after verification.
  interaction_id text,
  locale text not null,
  -- SHA-256 of the link's token; set by the job that writes the verification mail, null until then.
  token_hash text unique,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index signup_requests_expires on signup_requests (expires_at);
