-- The pending-login purge (every minute) deletes anonymous browser sessions that no interaction refers to
-- any more: these indexes keep its NOT EXISTS and its scan of anonymous sessions cheap.
create index interactions_session_hash on interactions (session_hash);
create index browser_sessions_anonymous_created_at on browser_sessions (created_at) where user_id is null;
