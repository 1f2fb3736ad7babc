// Delegations made by token exchange (RFC 8693, docs/token-exchange.md): which client acts for which user at
// which audience, under which grant, and every token each exchange issued (by jti). Recording an exchange and
// revoking a delegation race each other the way recording an access token and revoking a grant do
// (docs/grant-revocation.md): the recording share-locks the live grant, the live parent delegation and (by
// its upsert) the live delegation row, so a revocation either waits for it and copies its token, or comes
// first and the recording finds the mark and records nothing.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import { inBatches } from './batches.js';

/** Where a token presented as a subject token comes from: its grant, and its delegation when it was exchanged. */
export interface SubjectOrigin {
  grantId: string;
  /** What the user granted under it: the ceiling of every exchange traced back to it. */
  grantScope: string[];
  /** The client the user granted it to (the app the delegation chain starts from). */
  grantClientId: string;
  /** The delegation that issued it; undefined for a token of the grant itself. */
  delegationId?: string;
  /**
   * How many exchanges made it: 0 for a token of the grant itself, 1 for one exchanged from such a token, and
   * so on (counted on the delegation rows, which impersonation does not skip as it skips `act`). Counted up
   * to `CHAIN_WALK_LIMIT` at most: any number that high is past every limit anyway.
   */
  depth: number;
}

/** The most delegation rows `originOf` walks up a chain (parent_id never forms a cycle; this bounds it anyway). */
const CHAIN_WALK_LIMIT = 32;

export interface ExchangeRecord {
  userId: string;
  origin: SubjectOrigin;
  clientId: string;
  /** act.sub of the issued token; null when the client impersonates. */
  actor: string | null;
  audience: string;
  scope: readonly string[];
  jti: string;
  expiresAt: Date;
}

export type RecordOutcome = { recorded: true; delegationId: string } | { recorded: false; reason: 'grant_revoked' | 'delegation_revoked' };

/** A live delegation as /account lists it. */
export interface Delegation {
  id: string;
  clientId: string;
  clientName: string | null;
  /** act.sub; null when the client impersonates the user. */
  actor: string | null;
  audience: string;
  audienceName: string | null;
  scope: string[];
  createdAt: Date;
  lastExchangedAt: Date;
  expiresAt: Date;
  /** Below another delegation: the subject token was itself an exchanged one. */
  chained: boolean;
}

export interface DelegationsRepository {
  /** The grant (and delegation) a user's access token was issued under; undefined for a token of no grant. */
  originOf(token: { jti: string; userId: string; clientId: string }): Promise<SubjectOrigin | undefined>;
  /**
   * Records an exchange before its token is signed. Runs in the caller's transaction (`store.transaction`),
   * which also writes the audit event: both commit together or neither does.
   */
  record(exchange: ExchangeRecord): Promise<RecordOutcome>;
  /** The user's delegations not revoked whose latest token is still live, newest first (at most `limit`). */
  listLive(userId: string, limit: number): Promise<Delegation[]>;
  /**
   * Revokes one of the user's delegations and every delegation below it: marks them and moves their live
   * tokens to the revocation list. The revoked delegation, or undefined when the user has no such delegation.
   * Runs in the caller's transaction (the audit event commits with it).
   */
  revoke(userId: string, delegationId: string): Promise<Delegation | undefined>;
  /**
   * Deletes the jtis of exchanged tokens that have expired (in bounded batches); the delegations stay, with
   * their grant. An expired token is refused before its jti is looked up, and a revocation copies only live
   * jtis, so an expired one matters to nobody. Returns how many.
   */
  purgeExpiredTokens(): Promise<number>;
}

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

// Several statements that must commit together with the caller's audit event: refused outside a transaction
// rather than run as separate commits.
function inCallersTransaction<T>(db: Db, what: string, work: (tx: Db) => Promise<T>): Promise<T> {
  if (!db.isTransaction) throw new Error(`delegations.${what} runs in the caller's transaction (store.transaction)`);
  return work(db);
}

export function delegationsRepository(db: Db, clock: Clock): DelegationsRepository {
  const now = () => new Date(clock.now());

  /** The delegation and every one below it (the subject tokens of the lower ones came from the upper ones). */
  const subtree = (tx: Db, id: string) =>
    sql<{ id: string }>`
      with recursive tree (id) as (
        select id from delegations where id = ${id}
        union all
        select d.id from delegations d join tree t on d.parent_id = t.id
      ) select id from tree`.execute(tx);

  const listed = (executor: Db, userId: string) =>
    executor
      .selectFrom('delegations as d')
      .leftJoin('clients as c', 'c.id', 'd.client_id')
      .leftJoin('resource_servers as r', 'r.identifier', 'd.audience')
      .select([
        'd.id',
        'd.client_id',
        'c.name as client_name',
        'd.actor',
        'd.audience',
        'r.name as audience_name',
        'd.scope',
        'd.created_at',
        'd.last_exchanged_at',
        'd.expires_at',
        'd.parent_id',
      ])
      .where('d.user_id', '=', userId);

  type Row = Awaited<ReturnType<ReturnType<typeof listed>['execute']>>[number];
  const toDelegation = (r: Row): Delegation => ({
    id: r.id,
    clientId: r.client_id,
    clientName: r.client_name,
    actor: r.actor === '' ? null : r.actor,
    audience: r.audience,
    audienceName: r.audience_name,
    scope: r.scope,
    createdAt: r.created_at,
    lastExchangedAt: r.last_exchanged_at,
    expiresAt: r.expires_at,
    chained: r.parent_id !== '',
  });

  return {
    async originOf({ jti, userId, clientId }) {
      const exchanged = await db
        .selectFrom('delegation_tokens as t')
        .innerJoin('delegations as d', 'd.id', 't.delegation_id')
        .innerJoin('oauth_grants as g', 'g.id', 'd.grant_id')
        .select(['d.id', 'd.grant_id', 'g.scope', 'g.client_id'])
        .where('t.jti', '=', jti)
        .where('d.user_id', '=', userId)
        .executeTakeFirst();
      if (exchanged) {
        // The chain above it, walked by parent_id (one indexed lookup a link, at most CHAIN_WALK_LIMIT).
        const { rows } = await sql<{ depth: number }>`
          with recursive up (id, parent_id, n) as (
            select id, parent_id, 1 from delegations where id = ${exchanged.id}
            union all
            select d.id, d.parent_id, up.n + 1 from delegations d join up on d.id = up.parent_id
            where up.parent_id <> '' and up.n < ${CHAIN_WALK_LIMIT}
          ) select max(n)::int as depth from up`.execute(db);
        return {
          grantId: exchanged.grant_id,
          grantScope: exchanged.scope,
          grantClientId: exchanged.client_id,
          delegationId: exchanged.id,
          depth: Number(rows[0]?.depth ?? 1),
        };
      }
      // grant_access_tokens is keyed by (grant_id, jti): the user's grants at the client narrow it to a few keys.
      const own = await db
        .selectFrom('grant_access_tokens as t')
        .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
        .select(['g.id', 'g.scope', 'g.client_id'])
        .where('g.user_id', '=', userId)
        .where('g.client_id', '=', clientId)
        .where('t.jti', '=', jti)
        .executeTakeFirst();
      return own ? { grantId: own.id, grantScope: own.scope, grantClientId: own.client_id, depth: 0 } : undefined;
    },

    async record(exchange) {
      const at = now();
      return inCallersTransaction(db, 'record', async (tx): Promise<RecordOutcome> => {
        const grant = await tx
          .selectFrom('oauth_grants')
          .select('id')
          .where('id', '=', exchange.origin.grantId)
          .where('revoked_at', 'is', null)
          .where('expires_at', '>', at)
          .forShare()
          .executeTakeFirst();
        if (!grant) return { recorded: false, reason: 'grant_revoked' };
        const parent = exchange.origin.delegationId ?? '';
        if (parent !== '') {
          const live = await tx.selectFrom('delegations').select('id').where('id', '=', parent).where('revoked_at', 'is', null).forShare().executeTakeFirst();
          if (!live) return { recorded: false, reason: 'delegation_revoked' };
        }
        // One row per (grant, parent, client, actor, audience); a revoked one stays revoked (no row returned).
        const { rows } = await sql<{ id: string }>`
          insert into delegations (id, user_id, grant_id, parent_id, client_id, actor, audience, scope, created_at, last_exchanged_at, expires_at)
          values (${randomUUID()}, ${exchange.userId}, ${grant.id}, ${parent}, ${exchange.clientId}, ${exchange.actor ?? ''}, ${exchange.audience},
                  ${[...exchange.scope]}::text[], ${at}, ${at}, ${exchange.expiresAt})
          on conflict (grant_id, parent_id, client_id, actor, audience) do update
            set last_exchanged_at = excluded.last_exchanged_at,
                expires_at = greatest(delegations.expires_at, excluded.expires_at),
                scope = array(select distinct s from unnest(delegations.scope || excluded.scope) s order by s)
            where delegations.revoked_at is null
          returning id`.execute(tx);
        const delegationId = rows[0]?.id;
        if (!delegationId) return { recorded: false, reason: 'delegation_revoked' };
        await tx.insertInto('delegation_tokens').values({ jti: exchange.jti, delegation_id: delegationId, expires_at: exchange.expiresAt }).execute();
        // Under the grant too: revoking the grant (app revoked, password changed, reuse) revokes it with the rest.
        await tx.insertInto('grant_access_tokens').values({ jti: exchange.jti, grant_id: grant.id, expires_at: exchange.expiresAt }).execute();
        return { recorded: true, delegationId };
      });
    },

    async listLive(userId, limit) {
      const rows = await listed(db, userId)
        .where('d.revoked_at', 'is', null)
        .where('d.expires_at', '>', now())
        .orderBy('d.last_exchanged_at', 'desc')
        .orderBy('d.id')
        .limit(limit)
        .execute();
      return rows.map(toDelegation);
    },

    async revoke(userId, delegationId) {
      const at = now();
      return inCallersTransaction(db, 'revoke', async (tx) => {
        const target = await listed(tx, userId).where('d.id', '=', delegationId).where('d.revoked_at', 'is', null).executeTakeFirst();
        if (!target) return undefined;
        // Claimed by one revoke only: a second one at once waits on this row, then finds it revoked (one audit event).
        const claimed = await tx
          .updateTable('delegations')
          .set({ revoked_at: at })
          .where('id', '=', delegationId)
          .where('revoked_at', 'is', null)
          .returning('id')
          .executeTakeFirst();
        if (!claimed) return undefined;
        // Mark first: an exchange waiting on these rows then finds them revoked and records nothing.
        const marked = ids((await subtree(tx, delegationId)).rows);
        await tx.updateTable('delegations').set({ revoked_at: at }).where('id', 'in', marked).where('revoked_at', 'is', null).execute();
        // A fresh read of the tree: a delegation created below it just before the mark is reached too.
        const tree = ids((await subtree(tx, delegationId)).rows);
        await sql`
          insert into revoked_access_tokens (jti, expires_at, revoked_at)
          select t.jti, t.expires_at, ${at} from delegation_tokens t
          where t.delegation_id = any(${tree}::text[]) and t.expires_at > ${at}
          on conflict (jti) do nothing`.execute(tx);
        await tx.updateTable('delegations').set({ revoked_at: at }).where('id', 'in', tree).where('revoked_at', 'is', null).execute();
        return toDelegation(target);
      });
    },

    async purgeExpiredTokens() {
      const at = now();
      return inBatches(async (limit) => {
        const batch = db.selectFrom('delegation_tokens').select('jti').where('expires_at', '<', at).limit(limit);
        const result = await db.deleteFrom('delegation_tokens').where('jti', 'in', batch).executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },
  };
}
