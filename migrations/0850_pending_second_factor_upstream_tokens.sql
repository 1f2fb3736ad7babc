-- --store-tokens (docs/federation.md#upstream-tokens): the upstream's tokens of a federated sign-in that waits for
-- the account's own second factor, sealed under the key-encryption key exactly as they will be stored
-- (src/federation/upstream-tokens.ts). They are written to federated_identity_tokens only when the sign-in
-- completes; a sign-in abandoned at the second factor leaves them here until the wait expires or is replaced
-- (the row goes with its session and with the next wait), never in federated_identity_tokens.
alter table pending_second_factors add column upstream_tokens jsonb;
