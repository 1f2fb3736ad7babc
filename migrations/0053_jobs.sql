-- A database-backed job queue: survives restarts and is shared by every instance. Workers claim
-- with `for update skip locked`; a claimed job whose lease (locked_until) passes is claimed again.
create table jobs (
  id text primary key default gen_random_uuid()::text,
  kind text not null,
  payload jsonb not null,
  state text not null default 'queued' check (state in ('queued', 'running', 'done', 'failed')),
  attempts integer not null default 0,
  run_after timestamptz not null,
  locked_until timestamptz,
  last_error text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index jobs_claimable on jobs (run_after) where state in ('queued', 'running');
