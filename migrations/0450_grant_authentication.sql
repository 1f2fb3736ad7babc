-- How the user authenticated for a grant (RFC 8176 amr values), copied from the browser session's record
-- (session_authentications) when the code is redeemed. Tokens issued on refresh state the original
-- sign-in's amr/acr (OIDC Core 12.2: the id_token of a refresh describes the original authentication),
-- even after that browser session ended. Null for grants redeemed before this column, and for sign-ins
-- that recorded none.
alter table oauth_grants add column amr text[];
