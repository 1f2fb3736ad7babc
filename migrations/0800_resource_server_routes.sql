-- What each route of a resource server demands (issue 34, docs/protect.md): `METHOD PATH=SCOPES[;acr=…]`
-- rules, in the order given, read by `gatehouse protect` (and any kit user) through /resource-server/configuration
-- so that the proxy needs only --resource and --upstream. Validated by the resource-servers service; the
-- check here only bounds the list.
alter table resource_servers add column routes text[] not null default '{}';
alter table resource_servers add constraint resource_servers_routes_bounded check (cardinality(routes) <= 200);
