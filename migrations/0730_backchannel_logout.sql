-- OpenID Connect Back-Channel Logout 1.0 (docs/backchannel-logout.md): where a client wants logout tokens,
-- and whether it needs the `sid` claim in them.
alter table clients add column backchannel_logout_uri text;
alter table clients add column backchannel_logout_session_required boolean not null default false;
