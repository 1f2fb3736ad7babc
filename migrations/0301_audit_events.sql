-- The audit log (docs/audit-log.md): typed, append-only events. Rows are never updated; only the retention
-- purge deletes them. Secret values never reach this table: admin changes record changed field NAMES only.
create table audit_events (
  id text primary key,
  type text not null,
  occurred_at timestamptz not null,
  -- Who: the admin client, the acting user when there is one, or the CLI's operating-system user.
  actor_kind text not null check (actor_kind in ('admin-client', 'cli', 'user', 'system')),
  actor_client_id text,
  actor_user_id text,
  -- What: the resource and id changed (admin events), the user or client an event concerns.
  resource text,
  resource_id text,
  subject text,
  client_id text,
  changed_fields text[] not null default '{}',
  details jsonb not null default '{}',
  trace_id text
);
create index audit_events_order on audit_events (occurred_at desc, id desc);
create index audit_events_type on audit_events (type, occurred_at desc);

create function audit_events_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'audit events are append-only' using errcode = '55000';
end;
$$;
create trigger audit_events_no_update before update on audit_events
  for each row execute function audit_events_append_only();
