-- Grants are revoked by the application only (docs/grant-revocation.md): deleting a user or a client revokes
-- their grants, with the injected clock, in the same transaction before the delete cascades them away. The
-- trigger of 0030 copied jtis a second time, with the database's clock; it goes.
drop trigger if exists oauth_grants_revoke_on_delete on oauth_grants;
drop function if exists revoke_grant_access_tokens();
