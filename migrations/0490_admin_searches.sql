-- Two admin searches the console needs (docs/admin-api.md), each with an index so it stays cheap as the
-- tables grow:
-- users by attribute value: `attributes @> '{"team":"blue"}'` (and `'{"team":["blue"]}'` for an array that
-- holds it), answered by a GIN index in jsonb_path_ops (containment only, smaller than the default opclass);
create index users_attributes on users using gin (attributes jsonb_path_ops);
-- audit events by who acted (a user, an operator through the console, the CLI's operating-system user),
-- newest first like every audit page.
create index audit_events_actor on audit_events (actor_user_id, occurred_at desc, id desc) where actor_user_id is not null;
