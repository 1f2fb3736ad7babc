-- Payments: stand-alone or paying one order. Amounts in integer minor units of `currency`.
create table payments (
  id text primary key default gen_random_uuid()::text,
  order_id text references orders (id),
  client_id text not null,
  user_id text,
  amount_minor bigint not null check (amount_minor > 0),
  currency text not null,
  account text,
  created_at timestamptz not null
);
-- An order is paid at most once, whatever races the requests run.
create unique index payments_order_id on payments (order_id) where order_id is not null;
