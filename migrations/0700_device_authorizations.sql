-- RFC 8628 device authorizations: one row per POST /device_authorization. Both codes are stored only as
-- SHA-256 hashes (docs/device-flow.md). `status` moves once, pending → approved | denied, by one statement
-- at the consent; the token endpoint redeems an approved row once (redeemed_at, one statement that also
-- creates the grant), so parallel polls cannot both get tokens. `grant_id` is chosen at issue time, as for
-- authorization codes. `interval_seconds` grows by 5 s on each poll that came too soon (slow_down, 3.5);
-- `entries` counts how often the user code was entered on /device, charged before the code is checked.
create table device_authorizations (
  device_code_hash text primary key,
  user_code_hash text not null unique,
  grant_id text not null,
  client_id text not null references clients (id) on delete cascade,
  scope text[] not null,
  resource text,
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied')),
  user_id text references users (id) on delete cascade,
  auth_time timestamptz,
  session_id text,
  interval_seconds integer not null,
  last_polled_at timestamptz,
  entries integer not null default 0,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  redeemed_at timestamptz
);
create index device_authorizations_expires_at on device_authorizations (expires_at);
