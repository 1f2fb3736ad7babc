// Gatehouse under test: buildApp() in its own process, on PostgreSQL (DATABASE_URL), the embedded default (its
// own PostgreSQL server in DATA_DIR) or PGlite (DATABASE_URL=pglite:), with RATE_LIMIT_ENABLED=false and
// LOG_LEVEL=warn set by the parent. Set-up calls (clients, users, codes, seed rows) run in-process through the
// real modules: PGlite serves one process only.
import { randomUUID } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { connectDatabase } from '../../src/storage/driver/connect.js';
import { migrate } from '../../src/storage/driver/migrate.js';
import { commands } from '../../src/cli/commands/index.js';
import { accessTokenIssuer, type AccessTokenInput } from '../../src/oauth/issued-tokens/access-tokens.js';
import type { Core } from '../../src/core.js';
import { randomToken, sha256 } from '../../src/crypto/random.js';
import { REFRESH_TOKEN_BYTES } from '../../src/oauth/refresh/index.js';
import { reportStartFailure, serveRpc } from '../lib/child-rpc.js';
import { NotRunnable, srcFunction } from './optional.js';
import { mountBenchRoutes } from './gatehouse-bench-routes.js';

interface CodeInput {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string[];
  userId: string;
  authTime: number;
  nonce?: string;
  resource?: string;
}
type Deps = { store: Core['store']; clock: Core['clock']; config: Core['config'] };
/** What the token endpoint hands the redeemer: the access token's record and the first refresh token's hash. */
type RedemptionIssue = { accessToken: { jti: string; expiresAt: Date }; refreshTokenHash?: string };
type CodeIssuerFactory = (deps: Deps) => {
  issue(input: CodeInput): Promise<string>;
  redeem(code: string, clientId: string, issue?: RedemptionIssue): Promise<{ ok: true; code: { grantId: string } } | { ok: false; reason: string }>;
};

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const database = await connectDatabase(config);
  await migrate(database.db);
  const app = await buildApp({ config, database });
  const { core } = app;
  const bench = await mountBenchRoutes(app, core);
  await app.listen({ port: config.PORT, host: config.HOST });

  const runCommand = async ({ name, args }: { name: string; args: string[] }) => {
    const command = commands.find((c) => c.name === name);
    if (!command) throw new NotRunnable(`the CLI command "${name}" is not there yet`);
    return command.run(args, core);
  };
  // Minting runs just before a measured run: use the whole connection pool (DATABASE_POOL_SIZE, 20).
  const forEach = async <T>(count: number, one: (i: number) => Promise<T>, parallel = 20): Promise<T[]> => {
    const out: T[] = new Array(count);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < count; i = next++) out[i] = await one(i);
    };
    await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
    return out;
  };

  serveRpc(
    config.PORT,
    {
      /** Which capabilities have landed, by route and command presence. */
      capabilities: () => ({
        token: app.hasRoute({ method: 'POST', url: '/token' }),
        authorize: app.hasRoute({ method: 'GET', url: '/authorize' }),
        usersMe: app.hasRoute({ method: 'GET', url: '/v1/users/me' }),
        payments: app.hasRoute({ method: 'POST', url: '/v1/payments' }),
        orders: app.hasRoute({ method: 'GET', url: '/v1/orders' }),
        benchUsersMe: bench.usersMe && app.hasRoute({ method: 'GET', url: '/bench-unauthenticated/v1/users/me' }),
        commands: commands.map((c) => c.name),
      }),
      command: runCommand,
      setBenchPrincipal: ({ kind, sub, clientId, scopes }: { kind: 'user' | 'service'; sub: string; clientId: string; scopes: string[] }) =>
        bench.setPrincipal({ kind, sub, clientId, scopes: new Set(scopes), jti: 'bench-unauthenticated', exp: Math.floor(Date.now() / 1000) + 86_400 }),
      issueAccessTokens: async ({ count, input }: { count: number; input: AccessTokenInput }) => {
        const issuer = accessTokenIssuer({ keys: core.keys, clock: core.clock, config: core.config });
        return forEach(count, async () => (await issuer.issue(input)).token);
      },
      /** Codes minted through the real issuer (src/oauth/codes), as the consent step would. */
      mintCodes: async ({ count, input }: { count: number; input: CodeInput }) => {
        const factory = await srcFunction<CodeIssuerFactory>('oauth/codes/index.ts', 'authorizationCodes');
        const issuer = factory({ store: core.store, clock: core.clock, config: core.config });
        return forEach(count, () => issuer.issue(input));
      },
      /**
       * Refresh tokens minted directly through the module APIs, as the code exchange mints them: a code from the
       * real issuer, redeemed by the real redeemer, which creates the grant (the family) and its first refresh
       * token in one statement from the hash it is handed.
       */
      mintRefreshTokens: async ({ count, input }: { count: number; input: CodeInput }) => {
        const codes = (await srcFunction<CodeIssuerFactory>('oauth/codes/index.ts', 'authorizationCodes'))({
          store: core.store,
          clock: core.clock,
          config: core.config,
        });
        return forEach(count, async () => {
          const token = randomToken(REFRESH_TOKEN_BYTES);
          const accessToken = { jti: randomUUID(), expiresAt: new Date(Date.now() + core.config.ACCESS_TOKEN_TTL * 1000) };
          const redeemed = await codes.redeem(await codes.issue(input), input.clientId, { accessToken, refreshTokenHash: sha256(token) });
          if (!redeemed.ok) throw new Error(`could not redeem a freshly minted code: ${redeemed.reason}`);
          return token;
        });
      },
      sql: async ({ text, params }: { text: string; params?: unknown[] }) => (await core.db.executeQuery(CompiledQuery.raw(text, params ?? []))).rows,
      encodeCursor: async ({ module, name, args }: { module: string; name: string; args: unknown[] }) => {
        const f = await srcFunction<(...a: unknown[]) => unknown>(module, name);
        return f(...args);
      },
    },
    async () => {
      await app.close();
      await database.close();
    },
  );
}

main().catch(reportStartFailure);
