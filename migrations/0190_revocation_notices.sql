-- Every committed revocation is announced on the channel gatehouse_revocations, so each instance keeps the
-- revocation list in memory instead of reading it on every request (docs/revocation-feed.md). Triggers, not
-- the writers, send it: grants deleted with their user or client move their jtis here by trigger too, and
-- the CLI writes from another process. NOTIFY is delivered at commit, never for a rolled-back write.
-- Payload: {"jti", "exp"} or {"client", "until", "exp"}, times in epoch milliseconds.
create function notify_revoked_access_token() returns trigger language plpgsql as $$
begin
  perform pg_notify('gatehouse_revocations', json_build_object(
    'jti', new.jti,
    'exp', floor(extract(epoch from new.expires_at) * 1000))::text);
  return null;
end $$;

create trigger revoked_access_tokens_notify after insert on revoked_access_tokens
  for each row execute function notify_revoked_access_token();

-- An update widens an earlier revocation of the same client (greatest of both): the new row is announced.
create function notify_revoked_client() returns trigger language plpgsql as $$
begin
  perform pg_notify('gatehouse_revocations', json_build_object(
    'client', new.client_id,
    'until', floor(extract(epoch from new.covers_issued_until) * 1000),
    'exp', floor(extract(epoch from new.expires_at) * 1000))::text);
  return null;
end $$;

create trigger revoked_clients_notify after insert or update on revoked_clients
  for each row execute function notify_revoked_client();
