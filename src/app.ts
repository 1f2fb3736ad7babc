// buildApp(): the whole service as one Fastify instance, reused by main.ts, the tests and the benchmarks.
import Fastify, { type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type { Config } from './config.js';
import { systemClock, type Clock } from './clock.js';
import type { Database } from './storage/driver/database.js';
import { createServices, type Services } from './services.js';
import type { OutboundPolicy } from './http/outbound/outbound-policy.js';
import { loggerOptions } from './logger.js';
import { createErrorEdge } from './http/error-edge.js';
import type { Registry } from 'prom-client';
import { genReqId, installObservability, traceRequestId } from './http/observability.js';
import { requestIdOfActiveSpan, traceLogFields } from './telemetry/trace-context.js';
import { healthRoutes } from './http/health.js';
import { assetRoutes } from './http/assets.js';
import type { Brand } from './http/brand.js';
import { homePage } from './http/home-page.js';
import { installOverloadProtection } from './http/overload.js';
import { installAnonymousLimit } from './http/anonymous-limit.js';
import { installJsonParser } from './http/json-body.js';
import { installRefusalLog } from './http/refusal-log.js';
import { authorizationServer } from './oauth/index.js';
import { interactionPages } from './interaction/index.js';
import { accountPages } from './account/index.js';
import { resourceApi } from './resource-api.js';
import { jobWorker } from './jobs/plugin.js';
import { demoApp } from './demo/index.js';
import { demoRegistration, ensureDemoClient } from './oauth/clients/demo-client.js';
import { ensureConsoleClient } from './oauth/clients/console-client.js';
import { consoleRoutes } from './console/index.js';
import { logSubscriber } from './audit/audit-sink.js';
import { registerBuiltInResourceServers } from './admin-services/built-in-resource-servers.js';
import { lazySerializers } from './http/lazy-serializers.js';
import { outboxWorkerPlugin } from './outbox/plugin.js';
import { devMailboxPage } from './mail/dev-mailbox-page.js';
import { invitationPages } from './invitations/invitation-page.js';
import { selfServicePages } from './self-service/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    issuer: string;
    brand: Brand;
    /** The app's services, for the process entry (admin socket) and tests; plugins get theirs as arguments. */
    core: Services;
    /** The app's Prometheus registry, for the process entry (the metrics listener, METRICS_PORT) and tests. */
    metrics: Registry;
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
  /** The outbox lease (docs/outbox.md); only tests shorten it, to see a dead worker's message claimed again. */
  outboxLeaseMs?: number;
  /**
   * Tracing is on (main.ts started the SDK): log lines carry the active span's ids, and a request's id comes
   * from its own server span (docs/observability.md#traces).
   */
  traceIdsInLogs?: boolean;
}

export async function buildApp({
  config,
  database,
  clock = systemClock,
  logger = true,
  outbound,
  outboxLeaseMs,
  traceIdsInLogs = false,
}: AppOptions): Promise<FastifyInstance> {
  const edge = createErrorEdge();
  const logOptions = loggerOptions(config.LOG_LEVEL, traceIdsInLogs ? traceLogFields : undefined);
  const app = Fastify({
    logger: logger === false ? false : logger === true ? logOptions : { ...logOptions, stream: logger },
    genReqId: traceIdsInLogs ? traceRequestId(requestIdOfActiveSpan) : genReqId,
    bodyLimit: config.JSON_BODY_LIMIT,
    trustProxy: config.TRUST_PROXY.length > 0 ? config.TRUST_PROXY : false,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    frameworkErrors: edge.frameworkErrors,
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: false },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers() } },
  });

  // The composition root: every service of this app, built once (docs/design.md).
  const services = createServices({
    config,
    clock,
    database,
    warn: (message, error) => app.log.warn({ err: error }, message),
    log: app.log,
    ...(outbound ? { outbound } : {}),
    ...(outboxLeaseMs !== undefined ? { outboxLeaseMs } : {}),
  });
  app.addHook('onClose', async () => {
    services.redis?.disconnect();
    services.revocationFeed.close();
  });
  const { brand } = services;
  app.decorate('issuer', config.ISSUER);
  app.decorate('brand', brand);
  app.decorate('core', services);
  services.audit.subscribe(logSubscriber(app.log));

  await app.register(edge.plugin);
  installRefusalLog(app);
  const metrics = installObservability(app);
  app.decorate('metrics', metrics);
  services.outboxMetrics.register(metrics);
  services.oauthMetrics.register(metrics);
  await installOverloadProtection(app, config, database);
  installAnonymousLimit(app, services.rateLimits);

  // Only JSON and forms are request formats here; anything else is 415 (Fastify accepts text/plain by default).
  app.removeContentTypeParser('text/plain');
  installJsonParser(app);
  await app.register(formbody, { bodyLimit: config.FORM_BODY_LIMIT });

  healthRoutes(app, () => database.ping());
  assetRoutes(app, brand);
  homePage(app, { brand, demoEnabled: config.DEMO_ENABLED });

  // Each face declares the plugins above it depends on (src/face-dependencies.ts): a missing one fails here.
  await app.register(jobWorker, { jobs: services.jobs });
  await app.register(outboxWorkerPlugin, { worker: services.outboxWorker, close: () => services.mail.close() });
  // Development and tests without SMTP_URL only: production has no development mailbox (src/mail/mail-mode.ts).
  if (services.mail.devMailbox) devMailboxPage(app, { brand, mailbox: services.mail.devMailbox });
  await app.register(authorizationServer, { services });
  await app.register(interactionPages, { services });
  await app.register(accountPages, { services });
  invitationPages(app, { brand, deps: services });
  selfServicePages(app, services.selfService);
  await app.register(resourceApi, { services });
  if (config.DEMO_ENABLED) await installDemo(app, services);
  consoleRoutes(app, { issuer: config.ISSUER });

  await registerBuiltInResourceServers(services.store.resourceServers, config);
  // The admin console's public client, registered at each start (its routes: src/console/).
  await ensureConsoleClient(services.clientRegistrations, config.ISSUER);
  await services.keys.ensureKeys();
  return app;
}

/** The demo application is a client like any other: registered (idempotently), then given only HTTP facts. */
async function installDemo(
  app: FastifyInstance,
  services: Pick<Services, 'config' | 'clock' | 'brand' | 'clientRegistrations' | 'users' | 'keyEncryptionKey'>,
): Promise<void> {
  const { config, clock, brand, users } = services;
  const registration = demoRegistration(config.ISSUER, services.keyEncryptionKey);
  await ensureDemoClient(services.clientRegistrations, registration);
  await app.register(demoApp, { ...registration, issuer: config.ISSUER, brand, anyUsers: () => users.any(), now: () => clock.now() });
}
