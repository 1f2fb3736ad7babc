-- The username of the last failed login of an interaction, so the login form shows it again and only the
-- password has to be retyped. Kept server-side with the interaction rather than in the redirect's query
-- string, where it would land in access logs and browser history.
alter table interactions add column attempted_username text;
