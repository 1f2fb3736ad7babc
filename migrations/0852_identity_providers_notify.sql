-- The enabled identity providers are kept in memory per instance (docs/federation.md, "Cost"): the anonymous
-- /account sign-in form and the login pages read them on every view. Every change to identity_providers
-- announces itself, once per statement (an empty payload only says "read again"), as webhook endpoints do
-- (migration 0810).
create function notify_identity_providers() returns trigger language plpgsql as $$
begin
  perform pg_notify('gatehouse_identity_providers', '');
  return null;
end;
$$;
create trigger identity_providers_notify after insert or update or delete or truncate on identity_providers
  for each statement execute function notify_identity_providers();
