-- Linking a provider from /account (issue 30, docs/federation.md): the pending upstream request of a signed-in
-- browser session that asked to link one. Kept on the session row, which only its own cookie finds; taken once
-- at the provider's callback.
alter table browser_sessions add column upstream_link jsonb;
