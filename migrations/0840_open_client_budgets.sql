-- Budgets and liveness of clients nobody registered by hand (docs/agents.md).
-- `registered_from`: whom an open client is counted against — the /64 (IPv6) or the address (IPv4) that
-- self-registered it, or the host of its metadata document. The per-address and per-host budgets count rows by it.
-- `last_used_at`: the last authorization or token request of an open client (set when it is created). The
-- unused-client purge goes by it, so re-reading a metadata document no longer keeps its row alive.
alter table clients add column registered_from text;
alter table clients add column last_used_at timestamptz;
update clients set last_used_at = updated_at where provenance is not null;
update clients set registered_from = substring(id from '^https://(\[[^]]+\]|[^/:]+)') where provenance = 'metadata_document';
drop index clients_open_unused;
create index clients_open_unused on clients (last_used_at) where provenance is not null;
create index clients_open_budget on clients (provenance, registered_from, created_at) where provenance is not null;
