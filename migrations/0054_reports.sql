-- Asynchronous reports (aggregates of orders). The rows of a finished report live in report_rows so a
-- large CSV streams out in keyset batches instead of being built as one string.
create table reports (
  id text primary key default gen_random_uuid()::text,
  type text not null,
  client_id text not null,
  -- The user whose orders are summarised; null for a service token (all orders).
  user_id text,
  period_from timestamptz not null,
  period_to timestamptz not null,
  status text not null default 'pending' check (status in ('pending', 'running', 'done', 'failed')),
  error text,
  row_count integer,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  completed_at timestamptz
);

create table report_rows (
  report_id text not null references reports (id) on delete cascade,
  position integer not null,
  day text not null, -- YYYY-MM-DD (UTC)
  currency text not null,
  status text not null,
  order_count integer not null,
  total_minor bigint not null,
  primary key (report_id, position)
);
