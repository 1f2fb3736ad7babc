// Storage of RFC 8628 device authorizations, keyed by the SHA-256 of the device_code and found on /device by
// the SHA-256 of the user code. Every step that must hold under parallel requests is one statement:
//   - `enter` charges the code's entry budget and reads it (the charge comes before any answer);
//   - `decide` moves a pending authorization to approved or denied once;
//   - `redeem` consumes an approved authorization, creates its grant, records the access token about to be
//     signed and starts the refresh-token family when one is due, with the authorization code's redemption
//     statement (grant-redemption.ts): of any number of parallel polls exactly one gets tokens;
//   - `poll` records a poll that got no tokens and grows the interval when it came too soon (slow_down).
import { sql, type Selectable } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import type { IssuedAccessTokenRecord } from './grants-repository.js';
import { redeemIntoGrant, type GrantRedemptionWrites } from './grant-redemption.js';
import type { DeviceAuthorizationsTable } from '../driver/schema.js';
import { userFromJoin, type UserRecord } from './users-repository.js';

export type DeviceAuthorizationStatus = 'pending' | 'approved' | 'denied';

export interface DeviceAuthorization {
  grantId: string;
  clientId: string;
  scope: string[];
  resource: string | null;
  status: DeviceAuthorizationStatus;
  userId: string | null;
  authTime: Date | null;
  sessionId: string | null;
  intervalSeconds: number;
  entries: number;
  expiresAt: Date;
  redeemedAt: Date | null;
}

export interface NewDeviceAuthorization {
  deviceCodeHash: string;
  userCodeHash: string;
  grantId: string;
  clientId: string;
  scope: string[];
  resource: string | null;
  intervalSeconds: number;
  expiresAt: Date;
}

/** Who approved, from the browser session that signed in on /device. */
export interface DeviceApproval {
  userId: string;
  authTime: Date;
  sessionId: string;
}

/** The device grant always records its access token (storage/grant-redemption.ts). */
export type DeviceRedemptionWrites = GrantRedemptionWrites & { accessToken: IssuedAccessTokenRecord };

export interface RedeemedDevice {
  authorization: DeviceAuthorization;
  user: UserRecord | null;
  refreshIssued: boolean;
}

/** A poll that got no tokens: the row as it now is, and whether this poll came before the interval was up. */
export interface Poll {
  authorization: DeviceAuthorization;
  tooSoon: boolean;
}

export interface DeviceAuthorizationsRepository {
  /** False when the user code's hash is taken (a collision: the caller draws another code). */
  insert(row: NewDeviceAuthorization): Promise<boolean>;
  /** Counts one entry of the user code and returns the live, pending authorization it names (entries included). */
  enter(userCodeHash: string): Promise<DeviceAuthorization | undefined>;
  /** The live, pending authorization of this user code, without charging (the consent page shows it). */
  findPending(userCodeHash: string): Promise<DeviceAuthorization | undefined>;
  /** Approves or denies a live, pending authorization once; false when it was no longer pending or expired. */
  decide(userCodeHash: string, decision: { approve: DeviceApproval } | { deny: true }): Promise<boolean>;
  /** Consumes an approved, unexpired authorization for `clientId` and creates its grant; undefined otherwise. */
  redeem(deviceCodeHash: string, clientId: string, writes: DeviceRedemptionWrites): Promise<RedeemedDevice | undefined>;
  /** Records a poll of `clientId` that got no tokens; undefined for an unknown code or another client's. */
  poll(deviceCodeHash: string, clientId: string): Promise<Poll | undefined>;
  /** Deletes authorizations expired (and so unusable) for a day; returns how many. */
  purgeExpired(): Promise<number>;
}

type Row = Selectable<DeviceAuthorizationsTable>;

const toAuthorization = (r: Row): DeviceAuthorization => ({
  grantId: r.grant_id,
  clientId: r.client_id,
  scope: r.scope,
  resource: r.resource,
  status: r.status as DeviceAuthorizationStatus,
  userId: r.user_id,
  authTime: r.auth_time,
  sessionId: r.session_id,
  intervalSeconds: r.interval_seconds,
  entries: r.entries,
  expiresAt: r.expires_at,
  redeemedAt: r.redeemed_at,
});

/** RFC 8628 3.5: "the client MUST increase the polling interval by 5 seconds for all subsequent requests". */
const SLOW_DOWN_STEP_SECONDS = 5;

/** Expired rows are kept a while, so a late poll still learns expired_token rather than invalid_grant. */
const KEEP_EXPIRED_MS = 24 * 3600_000;

export function deviceAuthorizationsRepository(db: Db, clock: Clock): DeviceAuthorizationsRepository {
  const now = () => new Date(clock.now());
  const pending = (userCodeHash: string) =>
    db
      .selectFrom('device_authorizations')
      .selectAll()
      .where('user_code_hash', '=', userCodeHash)
      .where('status', '=', 'pending')
      .where('redeemed_at', 'is', null)
      .where('expires_at', '>', now());
  return {
    async insert(row) {
      const result = await db
        .insertInto('device_authorizations')
        .values({
          device_code_hash: row.deviceCodeHash,
          user_code_hash: row.userCodeHash,
          grant_id: row.grantId,
          client_id: row.clientId,
          scope: row.scope,
          resource: row.resource,
          interval_seconds: row.intervalSeconds,
          created_at: now(),
          expires_at: row.expiresAt,
        })
        .onConflict((conflict) => conflict.column('user_code_hash').doNothing())
        .returning('device_code_hash')
        .executeTakeFirst();
      return result !== undefined;
    },
    async enter(userCodeHash) {
      const at = now();
      const row = await db
        .updateTable('device_authorizations')
        .set((eb) => ({ entries: eb('entries', '+', 1) }))
        .where('user_code_hash', '=', userCodeHash)
        .where('status', '=', 'pending')
        .where('redeemed_at', 'is', null)
        .where('expires_at', '>', at)
        .returningAll()
        .executeTakeFirst();
      return row && toAuthorization(row);
    },
    async findPending(userCodeHash) {
      const row = await pending(userCodeHash).executeTakeFirst();
      return row && toAuthorization(row);
    },
    async decide(userCodeHash, decision) {
      const values =
        'approve' in decision
          ? { status: 'approved', user_id: decision.approve.userId, auth_time: decision.approve.authTime, session_id: decision.approve.sessionId }
          : { status: 'denied' };
      const result = await db
        .updateTable('device_authorizations')
        .set(values)
        .where('user_code_hash', '=', userCodeHash)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now())
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async redeem(deviceCodeHash, clientId, writes) {
      const at = now();
      // The where clause is the whole rule: approved, not yet redeemed, unexpired, this client. A parallel poll
      // waits for the row lock, then finds redeemed_at set and redeems nothing.
      const row = await redeemIntoGrant<Row>(
        db,
        at,
        sql`update device_authorizations set redeemed_at = ${at}
          where device_code_hash = ${deviceCodeHash} and client_id = ${clientId} and status = 'approved'
            and redeemed_at is null and expires_at > ${at}
          returning *`,
        writes,
      );
      if (!row) return undefined;
      return { authorization: toAuthorization(row), user: userFromJoin(row), refreshIssued: row.refresh_issued };
    },
    async poll(deviceCodeHash, clientId) {
      const at = now();
      // `prior` is the row before this poll: a pending poll sooner than its interval after the previous one
      // grows the interval by SLOW_DOWN_STEP_SECONDS (RFC 8628 3.5).
      const { rows } = await sql<Row & { too_soon: boolean }>`
        with prior as (
          select device_code_hash, last_polled_at, interval_seconds from device_authorizations
          where device_code_hash = ${deviceCodeHash} and client_id = ${clientId}
        )
        update device_authorizations d set
          last_polled_at = ${at},
          interval_seconds = d.interval_seconds + case
            when d.status = 'pending' and prior.last_polled_at is not null
             and prior.last_polled_at + make_interval(secs => prior.interval_seconds) > ${at}
            then ${SLOW_DOWN_STEP_SECONDS}::integer else 0 end
        from prior
        where d.device_code_hash = prior.device_code_hash
        returning d.*, d.interval_seconds > prior.interval_seconds as too_soon`.execute(db);
      const row = rows[0];
      return row && { authorization: toAuthorization(row), tooSoon: row.too_soon };
    },
    async purgeExpired() {
      const result = await db
        .deleteFrom('device_authorizations')
        .where('expires_at', '<', new Date(clock.now() - KEEP_EXPIRED_MS))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
