// Resource servers (APIs) and the scopes that belong to them. A scope name is unique across all of them.
import { sql, type Selectable } from 'kysely';
import type { Db } from '../driver/database.js';
import type { ResourceServerScopesTable, ResourceServersTable } from '../driver/schema.js';

/** User attributes a scope releases, per token kind (the id_token list also feeds /userinfo). */
export interface ScopeClaims {
  access_token?: string[];
  id_token?: string[];
}

export interface ResourceScope {
  name: string;
  description: string;
  claims: ScopeClaims;
}

export interface ResourceServer {
  identifier: string;
  name: string;
  /** Seconds; null means the server-wide ACCESS_TOKEN_TTL. */
  accessTokenTtl: number | null;
  offlineAccess: boolean;
  operatorOnly: boolean;
  /** The confidential client the resource server introspects with; null for the built-in ones. */
  clientId: string | null;
  scopes: ResourceScope[];
  /** RFC 8693: the clients that may exchange a user's token into this audience (docs/token-exchange.md). */
  tokenExchangeClients: string[];
  /** What each route demands, `METHOD PATH=SCOPES[;acr=…]` (docs/protect.md); validated by the service. Always set when read. */
  routes?: readonly string[];
  createdAt: Date;
  /** Bumped by every change: the admin API's strong ETag and If-Match compare-and-set. */
  version: number;
  updatedAt: Date;
}

export type NewResourceServer = Omit<ResourceServer, 'createdAt' | 'version' | 'updatedAt' | 'tokenExchangeClients'> & { tokenExchangeClients?: string[] };

/** What an update may change: everything but the identifier, the operator-only flag and the introspection client. */
export type ResourceServerChanges = Pick<ResourceServer, 'name' | 'accessTokenTtl' | 'offlineAccess' | 'scopes' | 'tokenExchangeClients'>;

export type VersionedWrite<T> = { written: T } | 'stale' | 'missing' | 'scope-taken';

export interface ResourceServersRepository {
  /** False (nothing written) when the identifier or one of the scope names is taken. */
  create(server: NewResourceServer): Promise<boolean>;
  list(limit: number): Promise<ResourceServer[]>;
  delete(identifier: string): Promise<boolean>;
  find(identifier: string): Promise<ResourceServer | undefined>;
  /** Rows strictly after the (created_at, identifier) position, ascending. */
  page(request: { after?: { createdAt: Date; identifier: string }; limit: number }): Promise<ResourceServer[]>;
  /** Replaces the settings and scopes, only while the stored version is `expectedVersion` (any version when undefined). */
  updateIfVersion(identifier: string, changes: ResourceServerChanges, expectedVersion: number | undefined, now: Date): Promise<VersionedWrite<ResourceServer>>;
  /** Deletes it and its introspection client, only while at `expectedVersion` (any when undefined). */
  deleteIfVersion(identifier: string, expectedVersion: number | undefined): Promise<VersionedWrite<{ clientId: string | null }>>;
}

const toClaims = (value: unknown): ScopeClaims => {
  const claims = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
  const access = list(claims.access_token);
  const id = list(claims.id_token);
  return { ...(access ? { access_token: access } : {}), ...(id ? { id_token: id } : {}) };
};

function assemble(rows: Selectable<ResourceServersTable>[], scopes: Selectable<ResourceServerScopesTable>[]): ResourceServer[] {
  const byServer = new Map<string, ResourceScope[]>();
  for (const s of scopes) {
    const list = byServer.get(s.resource_server) ?? [];
    list.push({ name: s.name, description: s.description, claims: toClaims(s.claims) });
    byServer.set(s.resource_server, list);
  }
  return rows.map((r) => ({
    identifier: r.identifier,
    name: r.name,
    accessTokenTtl: r.access_token_ttl,
    offlineAccess: r.offline_access,
    operatorOnly: r.operator_only,
    clientId: r.client_id,
    scopes: byServer.get(r.identifier) ?? [],
    tokenExchangeClients: r.token_exchange_clients,
    routes: r.routes ?? [],
    createdAt: r.created_at,
    version: r.version,
    updatedAt: r.updated_at,
  }));
}

export function resourceServersRepository(db: Db): ResourceServersRepository {
  // Inside a caller's transaction the work joins it; a `false`/'scope-taken' answer then obliges the caller
  // to roll back (the services do, by throwing).
  const atomically = <T>(work: (trx: Db) => Promise<T>): Promise<T> => (db.isTransaction ? work(db) : db.transaction().execute(work));

  async function withScopes(rows: Selectable<ResourceServersTable>[]): Promise<ResourceServer[]> {
    if (rows.length === 0) return [];
    const scopes = await db
      .selectFrom('resource_server_scopes')
      .selectAll()
      .where(
        'resource_server',
        'in',
        rows.map((r) => r.identifier),
      )
      .orderBy('position')
      .orderBy('name')
      .execute();
    return assemble(rows, scopes);
  }

  async function insertScopes(trx: Db, identifier: string, scopes: readonly ResourceScope[]): Promise<void> {
    if (scopes.length === 0) return;
    const inserted = await trx
      .insertInto('resource_server_scopes')
      .values(
        scopes.map((s, position) => ({ name: s.name, resource_server: identifier, description: s.description, claims: JSON.stringify(s.claims), position })),
      )
      .onConflict((oc) => oc.column('name').doNothing())
      .returning('name')
      .execute();
    // A scope name already belongs to another resource server: undo the whole write.
    if (inserted.length !== scopes.length) throw new ScopeTaken();
  }

  async function insert(server: NewResourceServer): Promise<boolean> {
    return atomically(async (trx) => {
      const inserted = await trx
        .insertInto('resource_servers')
        .values({
          identifier: server.identifier,
          name: server.name,
          access_token_ttl: server.accessTokenTtl,
          offline_access: server.offlineAccess,
          operator_only: server.operatorOnly,
          client_id: server.clientId,
          token_exchange_clients: server.tokenExchangeClients ?? [],
          ...(server.routes && server.routes.length > 0 ? { routes: [...server.routes] } : {}),
        })
        .onConflict((oc) => oc.column('identifier').doNothing())
        .returning('identifier')
        .executeTakeFirst();
      if (!inserted) return false;
      await insertScopes(trx, server.identifier, server.scopes);
      return true;
    }).catch((error: unknown) => {
      if (error instanceof ScopeTaken) return false;
      throw error;
    });
  }
  return {
    create: insert,
    async list(limit) {
      return withScopes(await db.selectFrom('resource_servers').selectAll().orderBy('created_at').orderBy('identifier').limit(limit).execute());
    },
    async find(identifier) {
      if (identifier.includes('\u0000')) return undefined;
      return (await withScopes(await db.selectFrom('resource_servers').selectAll().where('identifier', '=', identifier).execute()))[0];
    },
    async page({ after, limit }) {
      let query = db.selectFrom('resource_servers').selectAll();
      if (after) {
        query = query.where((eb) =>
          eb.or([eb('created_at', '>', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('identifier', '>', after.identifier)])]),
        );
      }
      return withScopes(await query.orderBy('created_at').orderBy('identifier').limit(limit).execute());
    },
    async updateIfVersion(identifier, changes, expectedVersion, now) {
      if (identifier.includes('\u0000')) return 'missing';
      return atomically(async (trx): Promise<VersionedWrite<ResourceServer>> => {
        let query = trx
          .updateTable('resource_servers')
          .set({
            name: changes.name,
            access_token_ttl: changes.accessTokenTtl,
            offline_access: changes.offlineAccess,
            token_exchange_clients: changes.tokenExchangeClients,
            updated_at: now,
            version: sql`version + 1`,
          })
          .where('identifier', '=', identifier);
        if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
        const row = await query.returningAll().executeTakeFirst();
        if (!row)
          return (await trx.selectFrom('resource_servers').select('identifier').where('identifier', '=', identifier).executeTakeFirst()) ? 'stale' : 'missing';
        await trx.deleteFrom('resource_server_scopes').where('resource_server', '=', identifier).execute();
        await insertScopes(trx, identifier, changes.scopes);
        return {
          written: assemble(
            [row],
            changes.scopes.map((s, position) => ({
              name: s.name,
              resource_server: identifier,
              description: s.description,
              claims: s.claims as never,
              position,
            })),
          )[0]!,
        };
      }).catch((error: unknown) => {
        if (error instanceof ScopeTaken) return 'scope-taken' as const;
        throw error;
      });
    },
    async deleteIfVersion(identifier, expectedVersion) {
      if (identifier.includes('\u0000')) return 'missing';
      return atomically(async (trx): Promise<VersionedWrite<{ clientId: string | null }>> => {
        let query = trx.deleteFrom('resource_servers').where('identifier', '=', identifier);
        if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
        const row = await query.returning('client_id').executeTakeFirst();
        if (!row)
          return (await trx.selectFrom('resource_servers').select('identifier').where('identifier', '=', identifier).executeTakeFirst()) ? 'stale' : 'missing';
        // Its introspection client goes with it (the reference cascades only the other way).
        if (row.client_id) await trx.deleteFrom('clients').where('id', '=', row.client_id).execute();
        return { written: { clientId: row.client_id } };
      });
    },
    async delete(identifier) {
      if (identifier.includes('\u0000')) return false;
      const row = await db.deleteFrom('resource_servers').where('identifier', '=', identifier).returning('client_id').executeTakeFirst();
      if (!row) return false;
      // Its introspection client goes with it (the reference cascades only the other way).
      if (row.client_id) await db.deleteFrom('clients').where('id', '=', row.client_id).execute();
      return true;
    },
  };
}

class ScopeTaken extends Error {}
