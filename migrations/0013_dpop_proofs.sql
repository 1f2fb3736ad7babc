-- RFC 9449 11.1: a DPoP proof's jti is accepted once. One row per (key thumbprint, jti) until the proof
-- could no longer pass the iat window; the insert "on conflict do nothing" is the atomic replay check.
create table used_dpop_proofs (
  jkt text not null,
  jti_hash text not null,
  expires_at timestamptz not null,
  primary key (jkt, jti_hash)
);
create index used_dpop_proofs_expires_at on used_dpop_proofs (expires_at);
