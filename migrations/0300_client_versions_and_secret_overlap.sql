-- Admin API: clients carry a version (the strong ETag and the compare-and-set of If-Match, so two
-- operators cannot overwrite each other) and, after a secret rotation, the previous secret's hash with the
-- moment it stops being accepted (docs/admin-api.md).
alter table clients add column version integer not null default 1;
alter table clients add column previous_secret_hash text;
alter table clients add column previous_secret_expires_at timestamptz;
