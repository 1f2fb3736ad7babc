-- Operators: the users who may sign in to the admin console (/console) and receive admin scopes through its
-- built-in client. Granted and revoked only by `gatehouse users grant-admin` / `revoke-admin` (the CLI: the
-- admin API cannot change it, so no admin token can make more admins). `can_write` gives admin:write (only
-- after a second factor); without it the operator gets admin:read alone. docs/console.md
create table operator_roles (
  user_id text primary key references users (id) on delete cascade,
  can_write boolean not null,
  granted_at timestamptz not null
);
