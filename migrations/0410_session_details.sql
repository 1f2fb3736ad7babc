-- What the account page shows of each signed-in browser session: the device (User-Agent, bounded) and
-- address it signed in from, and when. Written at sign-in beside the session's amr.
alter table session_authentications add column user_agent text;
alter table session_authentications add column ip_address text;
alter table session_authentications add column signed_in_at timestamptz;
