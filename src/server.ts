// Start-up: config → listen address checks (main and metrics) → database (with retry) → migrations → app → listen
// (main, then the metrics listener); graceful shutdown on SIGTERM/SIGINT.
import { ConfigError, loadConfig, type Config } from './config.js';
import { buildApp } from './app.js';
import { connectDatabase } from './storage/driver/connect.js';
import { migrate } from './storage/driver/migrate.js';
import { startAdminSocket } from './cli/admin-socket.js';
import { StartupError } from './startup/startup-error.js';
import { checkListenAddress, listenError } from './startup/listen-address.js';
import { startMetricsListener, type MetricsListener } from './http/metrics-listener.js';
import { PRIVATE_UMASK } from './startup/data-dir.js';
import { prettyLogStream, wantsPrettyLogs } from './log-format.js';
import { runShutdownHooks } from './startup/shutdown-hooks.js';
import { tracingRequested } from './telemetry/tracing-settings.js';

async function main(): Promise<void> {
  const started = performance.now();
  // Everything this process creates (the embedded database, keys, the admin socket) is its owner's
  // alone, as with PostgreSQL's own server process.
  process.umask(PRIVATE_UMASK);
  const config = loadConfig();
  await checkListenAddress(config.HOST, config.PORT);
  const metricsNames = { host: 'METRICS_HOST', port: 'METRICS_PORT' };
  if (config.METRICS_PORT !== null && config.METRICS_PORT !== 0) await checkListenAddress(config.METRICS_HOST, config.METRICS_PORT, undefined, metricsNames);
  const database = await connectDatabase(config, (m) => console.error(`gatehouse: ${m}`));
  await migrate(database.db);
  const logger = wantsPrettyLogs(process.stdout.isTTY, config.NODE_ENV) ? prettyLogStream(process.stdout) : true;
  // main.ts started tracing for the same variables: the ids of the active span go into every log line.
  const tracing = tracingRequested(process.env);
  const app = await buildApp({ config, database, logger, traceIdsInLogs: tracing });
  if (!config.RATE_LIMIT_ENABLED) app.log.warn('RATE_LIMIT_ENABLED=false: every rate limit is off (benchmarks and load tests only)');
  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    // The port was free a moment ago; another process took it in between.
    await app.close().catch(() => {});
    await database.close().catch(() => {});
    throw listenError(error, config.HOST, config.PORT);
  }
  let metrics: MetricsListener | undefined;
  if (config.METRICS_PORT !== null) {
    const address = { host: config.METRICS_HOST, port: config.METRICS_PORT };
    try {
      metrics = await startMetricsListener(app.metrics, address, (e) => app.log.error({ err: e }, 'metrics could not be collected'));
    } catch (error) {
      await app.close().catch(() => {});
      await database.close().catch(() => {});
      throw listenError(error, address.host, address.port, metricsNames);
    }
  }
  // The embedded database is single-process: the CLI reaches it through the running server.
  const adminSocket = database.kind === 'pglite' ? await startAdminSocket(app.core, (e) => app.log.error({ err: e }, 'CLI command failed')) : undefined;
  app.log.info(
    {
      issuer: config.ISSUER,
      database: database.kind,
      metrics: metrics ? `http://${config.METRICS_HOST}:${metrics.port}/metrics` : 'off',
      tracing: tracing ? 'otlp' : 'off',
      startup_ms: Math.round(performance.now() - started),
    },
    'gatehouse ready',
  );
  if (config.DEMO_ENABLED) app.log.info(`demo application at ${config.ISSUER}/demo (sign in with a user from \`npx gatehouse users create\`)`);
  installShutdown(
    config,
    async () => {
      adminSocket?.close();
      await metrics?.close();
      await app.close();
      await database.close();
      await runShutdownHooks();
    },
    (m) => app.log.info(m),
  );
}

function installShutdown(config: Config, close: () => Promise<void>, log: (m: string) => void): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log(`${signal}: finishing in-flight requests`);
    const force = setTimeout(() => {
      console.error(`gatehouse: shutdown exceeded SHUTDOWN_TIMEOUT=${config.SHUTDOWN_TIMEOUT}s, exiting`);
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT * 1000);
    force.unref();
    close().then(
      () => process.exit(0),
      (error) => {
        console.error(`gatehouse: error during shutdown: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof StartupError) {
    console.error(`gatehouse: ${error.message}`);
  } else {
    console.error('gatehouse: failed to start:', error);
  }
  process.exit(1);
});
