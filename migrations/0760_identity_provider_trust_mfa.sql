-- `--trust-mfa` (docs/federation.md): an identity provider trusted to satisfy the local account's second
-- factor when its id_token says the user passed more than one factor there (amr `mfa`, or an MFA acr).
-- Off unless an operator turns it on.
alter table identity_providers add column trust_mfa boolean not null default false;
