-- The housekeeping job deletes the jtis of expired exchanged tokens in batches (docs/token-exchange.md):
-- each batch finds its rows by expiry, so the table is not scanned whole every ten minutes.
create index delegation_tokens_expires_at on delegation_tokens (expires_at);
