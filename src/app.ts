// buildApp(): the whole service as one Fastify instance, reused by main.ts, the tests and the benchmarks.
import Fastify, { type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type { Config } from './config.js';
import { systemClock, type Clock } from './clock.js';
import type { Database } from './storage/database.js';
import { createCore, type Core } from './core.js';
import type { OutboundPolicy } from './http/outbound/outbound-policy.js';
import { loggerOptions } from './logger.js';
import { frameworkErrors, installErrorEdge } from './http/error-edge.js';
import { genReqId, installObservability } from './http/observability.js';
import { healthRoutes } from './http/health.js';
import { assetRoutes } from './http/assets.js';
import { brandFromConfig, type Brand } from './http/brand.js';
import { homePage } from './http/home-page.js';
import { installOverloadProtection } from './http/overload.js';
import { installAnonymousLimit } from './http/anonymous-limit.js';
import { installJsonParser } from './http/json-body.js';
import { installRefusalLog } from './http/refusal-log.js';
import { authorizationServer } from './oauth/index.js';
import { interactionPages } from './interaction/index.js';
import { resourceApi } from './api/index.js';
import { installJobQueue } from './jobs/plugin.js';
import { demoApp } from './demo/index.js';
import { resolveKeyEncryptionKey } from './crypto/key-encryption.js';
import { demoRegistration, ensureDemoClient } from './oauth/clients/demo-client.js';
import { clientsRepository } from './storage/clients-repository.js';
import { usersRepository } from './storage/users-repository.js';
import { logSubscriber } from './audit/audit-sink.js';

declare module 'fastify' {
  interface FastifyInstance {
    issuer: string;
    brand: Brand;
    core: Core;
  }
}

export interface AppOptions {
  config: Config;
  database: Database;
  clock?: Clock;
  /** Pass `false` to silence logs (tests), or a pino destination stream. */
  logger?: boolean | NodeJS.WritableStream;
  /** Where client-steered requests (jwks_uri) may go. Only tests pass one (to reach their loopback servers). */
  outbound?: OutboundPolicy;
}

export async function buildApp({ config, database, clock = systemClock, logger = true, outbound }: AppOptions): Promise<FastifyInstance> {
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

  const core = createCore({ config, clock, database, warn: (message, error) => app.log.warn({ err: error }, message), ...(outbound ? { outbound } : {}) });
  app.addHook('onClose', async () => {
    core.redis?.disconnect();
  });
  const brand = brandFromConfig(config);
  app.decorate('issuer', config.ISSUER);
  app.decorate('brand', brand);
  app.decorate('core', core);
  core.audit.subscribe(logSubscriber(app.log));

  installErrorEdge(app);
  installRefusalLog(app);
  installObservability(app);
  await installOverloadProtection(app, config, database);
  installAnonymousLimit(app, core.rateLimits);

  // Only JSON and forms are request formats here; anything else is 415 (Fastify accepts text/plain by default).
  app.removeContentTypeParser('text/plain');
  installJsonParser(app);
  await app.register(formbody, { bodyLimit: config.FORM_BODY_LIMIT });

  healthRoutes(app, () => database.ping());
  assetRoutes(app, brand);
  homePage(app, { brand, demoEnabled: config.DEMO_ENABLED });

  await app.register(authorizationServer, { core });
  await app.register(interactionPages, { core });
  installJobQueue(app, core);
  await app.register(resourceApi, { core });
  if (config.DEMO_ENABLED) await installDemo(app, core, brand);

  await core.keys.ensureKeys();
  return app;
}

/** The demo application is a client like any other: registered (idempotently), then given only HTTP facts. */
async function installDemo(app: FastifyInstance, core: Core, brand: Brand): Promise<void> {
  const { config, clock, db } = core;
  const registration = demoRegistration(config.ISSUER, resolveKeyEncryptionKey(config));
  await ensureDemoClient(clientsRepository(db, clock), registration);
  const users = usersRepository(db, clock);
  await app.register(demoApp, { ...registration, issuer: config.ISSUER, brand, anyUsers: () => users.any(), now: () => clock.now() });
}
