// Bench-only addition to the Gatehouse app under test (never part of the product): the /v1 API plugin
// mounted a second time, under /bench-unauthenticated/v1, with an authenticator that verifies nothing and
// returns a fixed principal. Handlers, hooks, schemas and serialisation are the real ones; only token
// verification is gone — which is exactly what the users-me scenario wants to price.
import { constants as zlib } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import type { Core } from '../../src/core.js';
import type { Principal } from '../../src/http/principal.js';
import { srcFunction } from './optional.js';

export const UNAUTHENTICATED_PREFIX = '/bench-unauthenticated/v1';

type ApiVersion = (app: FastifyInstance, options: { version: string; core: Core; services: Core; auth: unknown }) => Promise<void>;
type ResourceServerAuthFactory = (core: Core) => { authenticator: unknown; keySource: unknown };

export interface BenchRoutes {
  usersMe: boolean;
  /** The principal every unauthenticated request acts as (set by the scenario). */
  setPrincipal(principal: Principal): void;
}

export async function mountBenchRoutes(app: FastifyInstance, core: Core): Promise<BenchRoutes> {
  let principal: Principal | undefined;
  const setPrincipal = (p: Principal) => {
    principal = p;
  };
  let apiVersion: ApiVersion;
  let resourceServerAuth: ResourceServerAuthFactory;
  try {
    apiVersion = await srcFunction<ApiVersion>('api/version.ts', 'apiVersion');
    resourceServerAuth = await srcFunction<ResourceServerAuthFactory>('resource-server/auth/index.ts', 'resourceServerAuth');
  } catch {
    return { usersMe: false, setPrincipal };
  }
  const real = resourceServerAuth(core);
  const auth = {
    ...real,
    authenticator: {
      async authenticate(): Promise<Principal> {
        if (!principal) throw new Error('bench: no principal set for the unauthenticated mount');
        return principal;
      },
    },
  };
  // The same surroundings as src/resource-api.ts gives /v1 (compression plugin with the same options).
  await app.register(async (scope) => {
    await scope.register(compress, { encodings: ['br', 'gzip'], brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } } });
    await scope.register(apiVersion, { prefix: UNAUTHENTICATED_PREFIX, version: 'v1', core, services: core, auth });
  });
  return { usersMe: true, setPrincipal };
}
