-- The tamper-evident audit log (docs/audit-log.md): every event carries its place in one chain per deployment
-- and a hash over the previous link, its position and the SHA-256 digest of its canonical serialization
-- (computed by Gatehouse, src/audit/canonical-event.ts, and stored in chain_digest at insert).
--
-- The link is made at COMMIT, not at insert: a deferred constraint trigger locks the one chain-head row
-- (FOR UPDATE), appends the transaction's events in the order they were inserted, and the lock is released
-- by the commit itself. Concurrent transactions (on any instance) therefore get a total order — the order in
-- which they commit — while the lock covers only their commit, never the work before it (a key rotation
-- generating an RSA key, an admin request under an idempotency key).

-- The chain's head (the last link) and its anchor (where the stored log begins: the genesis link below, or,
-- once retention has purged a prefix, the signed checkpoint that covered it). One row.
create table audit_chain (
  singleton boolean primary key default true check (singleton),
  head_seq bigint not null,
  head_hash bytea not null,
  anchor_seq bigint not null,
  anchor_hash bytea not null,
  -- The checkpoint (compact JWS) the anchor rests on; null while the anchor is the genesis link.
  anchor_checkpoint text,
  -- When the chain began, and how many events were already stored then: those stay outside it (marked
  -- before_chain) and leave with retention; there can never be more of them than this.
  started_at timestamptz not null,
  before_chain_count bigint not null
);
-- Genesis: link 0, a fixed hash every verifier knows (src/audit/canonical-event.ts, GENESIS_HASH).
insert into audit_chain (head_seq, head_hash, anchor_seq, anchor_hash, started_at, before_chain_count)
select 0, sha256(convert_to('gatehouse audit chain v1', 'UTF8')), 0, sha256(convert_to('gatehouse audit chain v1', 'UTF8')), now(), count(*)
from audit_events;

-- The rows stored before the chain get `true` (the default when the column is added), every later row `false`.
alter table audit_events add column before_chain boolean not null default true;
alter table audit_events alter column before_chain set default false;

alter table audit_events add column chain_digest bytea;
alter table audit_events add column chain_seq bigint;
alter table audit_events add column chain_hash bytea;
create unique index audit_events_chain_seq on audit_events (chain_seq);

-- Signed checkpoints: the head at a moment, signed with the deployment's signing key (ES256), published at
-- /.well-known/audit-checkpoints and written as an `audit.checkpoint` event. Kept beyond the events they
-- cover while they anchor the log.
create table audit_checkpoints (
  seq bigint primary key,
  hash bytea not null,
  issued_at timestamptz not null,
  jws text not null
);
create index audit_checkpoints_issued on audit_checkpoints (issued_at desc);

-- The one update an event ever sees is its link into the chain, made by audit_events_link() below: from
-- unlinked to linked, every other column unchanged.
create or replace function audit_events_append_only() returns trigger language plpgsql as $$
begin
  if OLD.chain_seq is null and NEW.chain_seq is not null
     and (to_jsonb(OLD) - 'chain_seq' - 'chain_hash') = (to_jsonb(NEW) - 'chain_seq' - 'chain_hash') then
    return NEW;
  end if;
  raise exception 'audit events are append-only' using errcode = '55000';
end;
$$;

create function audit_events_link() returns trigger language plpgsql as $$
declare
  head audit_chain;
  link bytea;
begin
  if NEW.chain_digest is null then
    raise exception 'audit event % has no chain digest', NEW.id using errcode = '23502';
  end if;
  select * into head from audit_chain for update;
  -- hash(n) = SHA-256(hash(n-1) || n as 8 bytes big-endian || digest(n))
  link := sha256(head.head_hash || int8send(head.head_seq + 1) || NEW.chain_digest);
  update audit_events set chain_seq = head.head_seq + 1, chain_hash = link where id = NEW.id;
  update audit_chain set head_seq = head.head_seq + 1, head_hash = link;
  return null;
end;
$$;

create constraint trigger audit_events_chain after insert on audit_events
  deferrable initially deferred
  for each row execute function audit_events_link();
