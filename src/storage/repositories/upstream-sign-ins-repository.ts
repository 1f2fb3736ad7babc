// The upstream leg of an interaction (migrations/0510_federated_sign_in.sql): what the federation callback
// needs, kept on the interaction row, which is found only with the interaction id AND its own browser
// session (never by `state` alone, docs/federation.md). Taking it is single use: of two parallel callbacks
// (a double click, a replayed URL) only one gets it.
import { sql } from 'kysely';
import { sha256 } from '../../crypto/random.js';
import type { Db } from '../driver/database.js';

/** What the federation callback needs of the first leg (src/federation/authorization-request.ts), kept bound to this browser. */
export interface PendingUpstream {
  providerId: string;
  state: string;
  /** Null for oauth2 providers (no id_token). */
  nonce: string | null;
  codeVerifier: string;
  redirectUri: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** A verified upstream identity that the user must link by proving the local account (the confirmation page). */
export interface IdentityAwaitingProof {
  providerId: string;
  subject: string;
  email: string | null;
  /** The local account with the same verified e-mail. */
  userId: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Proofs tried on the confirmation page so far (chargeProof). */
  attempts?: number;
  /**
   * A provider with store_tokens: the upstream's tokens of this sign-in, already sealed
   * (src/federation/upstream-tokens.ts), written to federated_identity_tokens once the link is made.
   */
  tokens?: { providerId: string; subject: string; sealed: string; expiresAt: number | null; hasRefreshToken: boolean; scope: string | null };
}

/** `done`: the browser came back (a login_hint=idp:SLUG is not followed a second time in this interaction). */
export type UpstreamLeg = { stage: 'upstream'; pending: PendingUpstream } | { stage: 'link'; identity: IdentityAwaitingProof } | { stage: 'done' };

export interface LocalAccountByEmail {
  userId: string;
  email: string | null;
  emailVerified: boolean;
}

export interface UpstreamSignInsRepository {
  /** Replaces the interaction's upstream leg. */
  put(interactionId: string, leg: UpstreamLeg): Promise<void>;
  /** Reads it without taking it (the confirmation page shown again). */
  peek(interactionId: string): Promise<UpstreamLeg | undefined>;
  /** Single use: returns the leg and leaves `done` in its place, in one statement. */
  take(interactionId: string): Promise<UpstreamLeg | undefined>;
  /**
   * Counts one proof tried on the confirmation page, before it is looked at, if the interaction still
   * awaits proof and fewer than `max` were tried: the attempts used so far, or undefined when the link
   * request is over (taken, or out of attempts). One statement, so parallel proofs cannot exceed `max`.
   */
  chargeProof(interactionId: string, max: number): Promise<number | undefined>;
  /** Local accounts whose e-mail equals this one, case-insensitively (the linking decision's facts). */
  accountsWithEmail(email: string): Promise<LocalAccountByEmail[]>;
}

const asLeg = (value: unknown): UpstreamLeg | undefined => {
  const leg = (typeof value === 'string' ? JSON.parse(value) : value) as UpstreamLeg | null;
  return leg && (leg.stage === 'upstream' || leg.stage === 'link' || leg.stage === 'done') ? leg : undefined;
};

export function upstreamSignInsRepository(db: Db): UpstreamSignInsRepository {
  return {
    async put(interactionId, leg) {
      await db
        .updateTable('interactions')
        .set({ upstream: JSON.stringify(leg) })
        .where('id_hash', '=', sha256(interactionId))
        .execute();
    },
    async peek(interactionId) {
      const row = await db.selectFrom('interactions').select('upstream').where('id_hash', '=', sha256(interactionId)).executeTakeFirst();
      return asLeg(row?.upstream);
    },
    async take(interactionId) {
      // The old value, with the row locked: a parallel take waits, then finds it cleared.
      const result = await sql<{ upstream: unknown }>`
        update interactions i set upstream = ${JSON.stringify({ stage: 'done' })}::jsonb
        from (select id_hash, upstream from interactions where id_hash = ${sha256(interactionId)} and upstream is not null and upstream->>'stage' <> 'done' for update) old
        where i.id_hash = old.id_hash
        returning old.upstream`.execute(db);
      return asLeg(result.rows[0]?.upstream);
    },
    async chargeProof(interactionId, max) {
      const attempts = sql<number>`coalesce((upstream->'identity'->>'attempts')::int, 0)`;
      const result = await sql<{ attempts: number }>`
        update interactions set upstream = jsonb_set(upstream, '{identity,attempts}', to_jsonb(${attempts} + 1))
        where id_hash = ${sha256(interactionId)} and upstream->>'stage' = 'link' and ${attempts} < ${max}::int
        returning (upstream->'identity'->>'attempts')::int as attempts`.execute(db);
      return result.rows[0]?.attempts;
    },
    async accountsWithEmail(email) {
      const rows = await db
        .selectFrom('users')
        .select(['id', 'email', 'email_verified'])
        .where(sql<string>`lower(email)`, '=', email.toLowerCase())
        .limit(5)
        .execute();
      return rows.map((r) => ({ userId: r.id, email: r.email, emailVerified: r.email_verified }));
    },
  };
}
