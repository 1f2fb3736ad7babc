-- A consent gets its own id, so the admin API can name one (/admin/v1/consents/{id}) without putting a
-- user id and a client id (which may hold any character) into one path segment. The upsert at consent
-- keeps it: re-approving more scopes changes granted_at and the scopes, not the id.
alter table consents add column id text not null default gen_random_uuid()::text;
create unique index consents_id on consents (id);
