-- Browser origins (scheme://host[:port]) that may call /token, /userinfo, /revoke and /introspect with CORS,
-- besides the origins of a public client's redirect URIs. Set by the operator (`clients create --allowed-origin`).
alter table clients add column allowed_origins text[] not null default '{}';
