// Resource servers (APIs) and the scopes that belong to them. A scope name is unique across all of them.
import type { Selectable } from 'kysely';
import type { Db } from './database.js';
import type { ResourceServerScopesTable, ResourceServersTable } from './schema.js';

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
  createdAt: Date;
}

export type NewResourceServer = Omit<ResourceServer, 'createdAt'>;

export interface ResourceServersRepository {
  /** False (nothing written) when the identifier or one of the scope names is taken. */
  create(server: NewResourceServer): Promise<boolean>;
  list(limit: number): Promise<ResourceServer[]>;
  delete(identifier: string): Promise<boolean>;
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
    createdAt: r.created_at,
  }));
}

export function resourceServersRepository(db: Db): ResourceServersRepository {
  async function insert(server: NewResourceServer): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('resource_servers')
        .values({
          identifier: server.identifier,
          name: server.name,
          access_token_ttl: server.accessTokenTtl,
          offline_access: server.offlineAccess,
          operator_only: server.operatorOnly,
          client_id: server.clientId,
        })
        .onConflict((oc) => oc.column('identifier').doNothing())
        .returning('identifier')
        .executeTakeFirst();
      if (!inserted) return false;
      if (server.scopes.length === 0) return true;
      const scopes = await trx
        .insertInto('resource_server_scopes')
        .values(server.scopes.map((s, position) => ({ name: s.name, resource_server: server.identifier, description: s.description, claims: JSON.stringify(s.claims), position })))
        .onConflict((oc) => oc.column('name').doNothing())
        .returning('name')
        .execute();
      if (scopes.length === server.scopes.length) return true;
      // A scope name already belongs to another resource server: undo the whole registration.
      throw new ScopeTaken();
    }).catch((error: unknown) => {
      if (error instanceof ScopeTaken) return false;
      throw error;
    });
  }
  return {
    create: insert,
    async list(limit) {
      const rows = await db.selectFrom('resource_servers').selectAll().orderBy('created_at').orderBy('identifier').limit(limit).execute();
      if (rows.length === 0) return [];
      const scopes = await db
        .selectFrom('resource_server_scopes')
        .selectAll()
        .where('resource_server', 'in', rows.map((r) => r.identifier))
        .orderBy('position')
        .orderBy('name')
        .execute();
      return assemble(rows, scopes);
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
