-- The write path of a refresh rotation and a code exchange (docs/embedded-database.md, issue 36): every index
-- entry and every new row version costs WAL and CPU on each request.
--
-- A refresh token is updated in place once (rotated_at; sealed_successor under REFRESH_REUSE_GRACE) and an
-- authorization code once (redeemed_at), neither an indexed column: with room left on the page the new row
-- version stays on it (a HOT update) and no index gets an entry. Pages filled to the brim (the default) make
-- every such update a new version on another page, with an entry in each of the table's indexes. Half of
-- each new page is kept free for that; only pages written from now on are affected.
alter table refresh_tokens set (fillfactor = 50);
alter table authorization_codes set (fillfactor = 50);

-- grant_access_tokens is read by grant (revocation copies a grant's jtis; the purge deletes by expiry), never
-- by jti alone: a primary key on (grant_id, jti) serves those reads and replaces both the jti key and the
-- grant_id index, one index entry per issued token instead of two.
alter table grant_access_tokens drop constraint grant_access_tokens_pkey;
alter table grant_access_tokens add primary key (grant_id, jti);
drop index grant_access_tokens_grant_id;
