-- /resource-server/revocations (docs/protect.md) reads the entries revoked since a point in time, polled every
-- 500 ms by each `gatehouse protect`: an index keeps that a range scan however long the list is.
create index revoked_access_tokens_revoked_at on revoked_access_tokens (revoked_at);
create index revoked_clients_revoked_at on revoked_clients (revoked_at);
