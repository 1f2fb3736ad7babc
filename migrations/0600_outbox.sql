-- The transactional outbox (docs/outbox.md): everything that leaves the process (e-mail today; webhooks and
-- back-channel logout tokens later) is a row written in the same transaction as the change that causes it,
-- and a worker delivers it. A message is claimed with `for update skip locked` and a lease (locked_until),
-- so several instances never deliver the same row at once and a message whose worker died is claimed again.
-- `attempts` fences a stale worker's result. Secret parts (a sign-in link) are sealed under the
-- key-encryption key, never stored readable; `payload` holds only what an operator may see.
create table outbox_messages (
  id text primary key default gen_random_uuid()::text,
  channel text not null check (channel ~ '^[a-z][a-z0-9_]{0,39}$'),
  kind text not null,
  recipient text not null,
  payload jsonb not null,
  sealed_secret text,
  state text not null default 'pending' check (state in ('pending', 'delivering', 'delivered', 'dead')),
  attempts integer not null default 0,
  max_attempts integer not null,
  next_attempt_at timestamptz not null,
  locked_until timestamptz,
  last_error text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  delivered_at timestamptz
);
-- What the worker claims: only undelivered rows, in the order they became due.
create index outbox_messages_due on outbox_messages (next_attempt_at) where state in ('pending', 'delivering');
-- The admin list (newest first) and the purge of old delivered and dead messages.
create index outbox_messages_created on outbox_messages (created_at desc, id desc);
create index outbox_messages_finished on outbox_messages (state, updated_at) where state in ('delivered', 'dead');
