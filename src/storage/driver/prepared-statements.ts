// Named prepared statements for the PostgreSQL server: a parameterised statement text is sent under a
// stable name, so each pooled connection parses and plans it once instead of on every request (measured:
// half the server's CPU per refresh rotation). BEGIN, COMMIT and migrations (no parameters) stay unnamed.
//
// A statement prepared before another instance migrated the schema can fail with "cached plan must not
// change result type" (0A000) when its result columns changed. Outside a transaction it is retried once
// unnamed; either way that text is never named again in this process.
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { sha256 } from '../../crypto/random.js';

/** Distinct texts are bounded by the code; the cap only guards against a generator of unbounded texts. */
const MAX_NAMED = 2_000;

const isStalePlan = (error: unknown) =>
  (error as { code?: string }).code === '0A000' && /cached plan must not change result type/.test(String((error as Error).message));

export function withPreparedStatements(pool: pg.Pool): PostgresPool {
  // Statement text → its name; null once the text is never to be named again (a stale plan, see above).
  const names = new Map<string, string | null>();
  const nameFor = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED) names.set(text, (name = `gh_${sha256(text).slice(0, 24)}`));
    return name ?? undefined;
  };

  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let inTransaction = false;
    const query = async (text: string, values: unknown[]) => {
      const name = values.length > 0 ? nameFor(text) : undefined;
      if (!name) {
        // Kysely's transactions are plain statements on one connection; track them for the retry rule.
        if (/^(begin|start transaction)/i.test(text)) inTransaction = true;
        else if (/^(commit|rollback)/i.test(text)) inTransaction = false;
        return client.query(text, values);
      }
      try {
        return await client.query({ name, text, values });
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        names.set(text, null);
        if (inTransaction) throw error;
        return client.query(text, values);
      }
    };
    return {
      query: ((textOrCursor: unknown, parameters?: readonly unknown[]) =>
        typeof textOrCursor === 'string'
          ? query(textOrCursor, [...(parameters ?? [])])
          : client.query(textOrCursor as never)) as unknown as PostgresPoolClient['query'],
      release: (destroy?: boolean) => client.release(destroy),
    };
  };

  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrapped = {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) wrappers.set(client, (wrapper = wrap(client)));
      return wrapper;
    },
    end: () => pool.end(),
  };
  // Kysely 0.29 reads the pool's options (to cancel queries); 0.28, the version pinned for Node 20, has no
  // such member in its type. Added outside the literal, this compiles against either.
  return Object.assign(wrapped, { options: pool.options });
}
