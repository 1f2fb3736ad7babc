-- RFC 7523 3 / RFC 7521 5.2: a client assertion's jti is single use. One row per (client, jti) until the
-- assertion expires; the insert "on conflict do nothing" is the atomic replay check shared by every instance.
create table used_client_assertions (
  client_id text not null,
  jti_hash text not null,
  expires_at timestamptz not null,
  primary key (client_id, jti_hash)
);
create index used_client_assertions_expires_at on used_client_assertions (expires_at);
