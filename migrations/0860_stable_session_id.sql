-- A browser session's `sid` (OpenID Connect Back-Channel Logout, docs/backchannel-logout.md#sid) is stored on
-- its row instead of being derived from the cookie's hash: the cookie value (and so id_hash) still changes at
-- every sign-in (no fixation), but when the SAME account signs in again the new row keeps the old row's sid,
-- so the relying parties' id_tokens and the logout token that ends the session name the same session.
-- Existing sessions keep the sid they were given: base64url(sha256('sid:' || id_hash)), unpadded, as
-- src/tokens/session-id.ts derived it until now.
create function gatehouse_derived_sid(id_hash text) returns text language sql immutable strict as $$
  select rtrim(translate(encode(sha256(convert_to('sid:' || id_hash, 'UTF8')), 'base64'), '+/', '-_'), '=')
$$;

alter table browser_sessions add column sid text;
update browser_sessions set sid = gatehouse_derived_sid(id_hash);
alter table browser_sessions alter column sid set not null;
-- One live row per session: a sign-in takes over the row it replaces (deletes it) before inserting its own.
create unique index browser_sessions_sid on browser_sessions (sid);

-- What a code, a device approval and a grant remember of the session they came from is now its sid (it was
-- the row's id_hash, which a re-login replaces): the grants of the first sign-in stay bound to the session the
-- relying party knows, and a sign-out announces them with the sid their id_tokens carried.
update authorization_codes set session_id = gatehouse_derived_sid(session_id) where session_id is not null;
update device_authorizations set session_id = gatehouse_derived_sid(session_id) where session_id is not null;
update oauth_grants set session_id = gatehouse_derived_sid(session_id) where session_id is not null;
-- A sign-out looks the session's clients up by it.
create index oauth_grants_session_id on oauth_grants (session_id) where session_id is not null;

drop function gatehouse_derived_sid(text);
