-- The admin API's user list (docs/admin-api.md): pages in (created_at, id) order, and a case-insensitive
-- prefix search on username or e-mail. text_pattern_ops lets `lower(x) like 'prefix%'` use the index
-- whatever the database's collation; a substring search could not use a B-tree at all.
create index users_created_order on users (created_at, id);
create index users_username_prefix on users (lower(username) text_pattern_ops);
create index users_email_prefix on users (lower(email) text_pattern_ops);
