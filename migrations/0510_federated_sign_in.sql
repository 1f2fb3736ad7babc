-- Federation in the sign-in (issue 30, docs/federation.md).
-- The upstream leg of one interaction: the pending authorization request (state, nonce, PKCE verifier) while
-- the browser is at the upstream, then the verified identity waiting for the local account's proof before a
-- link. Kept on the interaction, which only its own browser session finds: never looked up by state alone.
alter table interactions add column upstream jsonb;

-- The first factor a pending second factor follows: null = the password, '{fed}' = an upstream provider.
-- The amr of the completed sign-in names what was really proved.
alter table pending_second_factors add column first_factor text[];
