-- Admin API: resource servers carry a version (the strong ETag and the compare-and-set of If-Match, as
-- clients do since 0300) and the time of their last change (docs/admin-api.md). Their creation time is the
-- list's cursor position, which carries milliseconds: stored at that precision so that a cursor names a row
-- exactly (no row is repeated or skipped across pages).
alter table resource_servers add column version integer not null default 1;
alter table resource_servers add column updated_at timestamptz not null default date_trunc('milliseconds', now());
update resource_servers set created_at = date_trunc('milliseconds', created_at);
alter table resource_servers alter column created_at set default date_trunc('milliseconds', now());
