-- Orders of the small shop (DESIGN.md §1): pending → paid | cancelled. Money is integer minor units
-- of the order's currency (never floating point). created_at is written by the application clock.
create table orders (
  id text primary key default gen_random_uuid()::text,
  user_id text not null,
  status text not null default 'pending' check (status in ('pending', 'paid', 'cancelled')),
  currency text not null,
  total_minor bigint not null check (total_minor >= 0),
  items jsonb not null,
  payment_id text,
  version integer not null default 1,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- Keyset pagination: `(created_at, id) < ($1, $2) order by created_at desc, id desc` walks these
-- indexes from the cursor, so a page deep in the collection costs what page 1 costs.
create index orders_created_at_id on orders (created_at desc, id desc);
create index orders_user_created_at_id on orders (user_id, created_at desc, id desc);
