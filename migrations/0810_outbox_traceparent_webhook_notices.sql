-- Tracing (docs/observability.md#traces): the W3C traceparent of the request whose transaction enqueued the
-- message, so each delivery attempt's span continues that request's trace, however much later it runs. Null
-- when tracing is off or nothing was traced (the CLI, a background task).
alter table outbox_messages add column traceparent text;

-- Webhook endpoints announce their changes (docs/webhooks.md, "Cost"): each instance keeps the event types some
-- enabled endpoint wants in memory and reloads them on this notice, so an audit event no endpoint wants costs no
-- query. Once per statement: the payload is empty, a notice only says "read again".
create function notify_webhook_endpoints() returns trigger language plpgsql as $$
begin
  perform pg_notify('gatehouse_webhook_endpoints', '');
  return null;
end;
$$;
create trigger webhook_endpoints_notify after insert or update or delete or truncate on webhook_endpoints
  for each statement execute function notify_webhook_endpoints();
