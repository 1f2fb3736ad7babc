-- Tracing (docs/observability.md#traces): the W3C traceparent of the request whose transaction enqueued the job,
-- so the job's run is a span of that request's trace however much later it runs (as outbox_messages.traceparent,
-- migration 0810). Null when tracing is off or nothing was traced.
alter table jobs add column traceparent text;
