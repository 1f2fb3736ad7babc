-- Clients nobody registered by hand (docs/agents.md): `metadata_document` rows stand for a client whose
-- client_id is the https URL of its Client ID Metadata Document (the row is the last document read, so codes,
-- grants and consents can refer to it); `self_registered` rows were created by anonymous POST /register
-- (REGISTRATION=open). Both are deleted once unused (OPEN_CLIENT_UNUSED_TTL). `resources` limits the resource
-- servers (RFC 8707) the client may name; null: any.
alter table clients add column provenance text check (provenance in ('metadata_document', 'self_registered'));
alter table clients add column resources text[];
create index clients_open_unused on clients (updated_at) where provenance is not null;
