// buildApp(): the whole service as one Fastify instance, reused by main.ts, the tests and the benchmarks.
import Fastify, { type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type { Config } from './config.js';
import { systemClock, type Clock } from './clock.js';
import type { Database } from './storage/database.js';
import { createCore, type Core } from './core.js';
import { loggerOptions } from './logger.js';
import { frameworkErrors, installErrorEdge } from './http/error-edge.js';
import { genReqId, installObservability } from './http/observability.js';
import { healthRoutes } from './http/health.js';
import { assetRoutes } from './http/assets.js';
import { installOverloadProtection } from './http/overload.js';
import { installAnonymousLimit } from './http/anonymous-limit.js';
import { installRefusalLog } from './http/refusal-log.js';
import { authorizationServer } from './oauth/index.js';
import { interactionPages } from './interaction/index.js';
import { resourceApi } from './api/index.js';
import { installJobQueue } from './jobs/plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    issuer: string;
    core: Core;
  }
}

export interface AppOptions {
  config: Config;
  database: Database;
  clock?: Clock;
  /** Pass `false` to silence logs (tests), or a pino destination stream. */
  logger?: boolean | NodeJS.WritableStream;
}

export async function buildApp({ config, database, clock = systemClock, logger = true }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      logger === false
        ? false
        : logger === true
          ? loggerOptions(config.LOG_LEVEL)
          : { ...loggerOptions(config.LOG_LEVEL), stream: logger },
    genReqId,
    bodyLimit: config.JSON_BODY_LIMIT,
    trustProxy: config.TRUST_PROXY.length > 0 ? config.TRUST_PROXY : false,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    frameworkErrors,
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: false },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
  });

  const core = createCore({ config, clock, database, warn: (message, error) => app.log.warn({ err: error }, message) });
  app.addHook('onClose', async () => {
    core.redis?.disconnect();
  });
  app.decorate('issuer', config.ISSUER);
  app.decorate('core', core);

  installErrorEdge(app);
  installRefusalLog(app);
  installObservability(app);
  await installOverloadProtection(app, config, database);
  installAnonymousLimit(app, core.rateLimits);

  // Only JSON and forms are request formats here; anything else is 415 (Fastify accepts text/plain by default).
  app.removeContentTypeParser('text/plain');
  await app.register(formbody, { bodyLimit: config.FORM_BODY_LIMIT });

  healthRoutes(app, () => database.ping());
  assetRoutes(app);

  await app.register(authorizationServer, { core });
  await app.register(interactionPages, { core });
  installJobQueue(app, core);
  await app.register(resourceApi, { core });

  await core.keys.ensureKeys();
  return app;
}
