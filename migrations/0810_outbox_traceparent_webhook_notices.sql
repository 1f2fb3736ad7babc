-- Tracing (docs/observability.md#traces): the W3C traceparent of the request whose transaction enqueued the
-- message, so each delivery attempt's span continues that request's trace, however much later it runs. Null
-- when tracing is off or nothing was traced (the CLI, a background task).
alter table outbox_messages add column traceparent text;
