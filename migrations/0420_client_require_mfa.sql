-- A client that requires a second factor (`gatehouse clients create --require-mfa`): its users always
-- complete one, and a session that signed in without one is stepped up (docs/second-factors.md).
alter table clients add column require_mfa boolean not null default false;
