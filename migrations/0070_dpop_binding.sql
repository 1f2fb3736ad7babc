-- RFC 9449 §5 and §10: DPoP key bindings that outlive one request.
-- refresh_tokens.dpop_jkt: the JWK thumbprint a refresh token is bound to. Set by the first token request
-- of the family that carried a proof and inherited by every successor, so it is the family's binding;
-- rotation matches only with a proof of that key.
-- authorization_codes.dpop_jkt: the `dpop_jkt` authorization request parameter; the code redeems only with
-- a proof of that key.
alter table refresh_tokens add column dpop_jkt text;
alter table authorization_codes add column dpop_jkt text;
