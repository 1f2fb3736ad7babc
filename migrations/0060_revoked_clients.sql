-- Clients whose access tokens all stop working: a deleted or disabled client. Client-credentials tokens
-- belong to no grant, so the per-jti list cannot name them; this row refuses every token of the client
-- issued (iat) up to covers_issued_until, which reaches past the deletion by the client-cache time so a
-- token minted by an instance that still remembered the client is refused too. Kept until the last token
-- it can refuse has expired.
create table revoked_clients (
  client_id text primary key,
  revoked_at timestamptz not null,
  covers_issued_until timestamptz not null,
  expires_at timestamptz not null
);
create index revoked_clients_expires_at on revoked_clients (expires_at);
