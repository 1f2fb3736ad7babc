-- Browser sessions of the login pages. Only sha256(session id) is stored; the raw id lives in the cookie.
-- A session without user_id is the anonymous pre-login session that binds an interaction to one browser;
-- login replaces it with a new id (no fixation). csrf_token is the synchroniser token of every form.
create table browser_sessions (
  id_hash text primary key,
  user_id text references users (id) on delete cascade,
  auth_time timestamptz,
  csrf_token text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index browser_sessions_expires_at on browser_sessions (expires_at);
create index browser_sessions_user_id on browser_sessions (user_id);

-- A validated authorization request waiting for login and consent, bound to one browser session.
create table interactions (
  id_hash text primary key,
  session_hash text not null,
  client_id text not null references clients (id) on delete cascade,
  request jsonb not null,
  login_required boolean not null,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index interactions_expires_at on interactions (expires_at);

-- Remembered consent: the union of the scopes a user granted a client.
create table consents (
  user_id text not null references users (id) on delete cascade,
  client_id text not null references clients (id) on delete cascade,
  scopes text[] not null,
  granted_at timestamptz not null,
  primary key (user_id, client_id)
);
