// Settings of the process itself: run mode, address and issuer, where data lives, the database and Redis,
// logging and shutdown.
import { resolve } from 'node:path';
import { int, bool, oneOf, nonEmpty, httpUrl, postgresUrl, redisUrl, seconds, type Setting } from './setting.js';

export const serverSettings = {
  NODE_ENV: {
    doc: 'Run mode. `production` refuses generated secrets and non-https issuers.',
    expects: 'one of development, production, test',
    parse: oneOf('development', 'production', 'test'),
    fallback: 'development',
  },
  PORT: { doc: 'TCP port to listen on.', expects: 'an integer between 0 and 65535', parse: int(0, 65535), fallback: 3000 },
  HOST: {
    doc: 'Interface to bind. Use `0.0.0.0` in containers.',
    expects: 'a host name or IP address',
    parse: nonEmpty,
    fallback: 'localhost',
  },
  METRICS_PORT: {
    doc: 'TCP port of the separate Prometheus listener (`GET /metrics`); `off` serves no metrics. The main listener has no `/metrics` (docs/security/tokens-and-operator-views.md).',
    expects: 'an integer between 0 and 65535, or off',
    parse: (raw: string): number | null | undefined => (raw.trim().toLowerCase() === 'off' ? null : int(0, 65535)(raw)),
    fallback: 9464 as number | null,
  },
  METRICS_HOST: {
    doc: 'Interface the metrics listener binds: loopback by default, so only this host (a local Prometheus or agent) can scrape it.',
    expects: 'a host name or IP address',
    parse: nonEmpty,
    fallback: '127.0.0.1',
  },
  ISSUER: {
    doc: 'Public base URL of the service (`base_url`); the OAuth issuer identifier. No trailing slash, query or fragment.',
    expects: 'an http(s) URL without query or fragment',
    parse: httpUrl,
    fallback: (p: Record<string, unknown>) => `http://localhost:${p.PORT as number}`,
    docDefault: 'http://localhost:$PORT',
  },
  DATA_DIR: {
    doc: 'Directory of the embedded database and generated development secrets. A relative path is resolved once, at start-up, against the working directory.',
    expects: 'a directory path',
    // Absolute from here on: the embedded server's socket URL, its log and the CLI all need the same directory,
    // and a relative socket "host" is not a Unix socket to the PostgreSQL client.
    parse: (raw: string) => {
      const dir = nonEmpty(raw);
      return dir === undefined ? undefined : resolve(dir);
    },
    fallback: () => resolve('data'),
    docDefault: './data',
  },
} satisfies Record<string, Setting<unknown>>;

export const storeSettings = {
  DATABASE_URL: {
    doc: 'PostgreSQL server to use instead of the embedded PostgreSQL server in DATA_DIR; `pglite:` selects PGlite in DATA_DIR (one process).',
    expects: 'a postgres:// or postgresql:// URL, or pglite:',
    parse: postgresUrl,
    fallback: undefined as string | undefined,
    docDefault: '(embedded PostgreSQL server in DATA_DIR)',
  },
  DATABASE_POOL_SIZE: {
    doc: 'Maximum connections to the PostgreSQL server.',
    expects: 'an integer between 1 and 500',
    parse: int(1, 500),
    fallback: 20,
  },
  DATABASE_PREPARED_STATEMENTS: {
    doc: 'Send repeated statements as named prepared statements (parsed and planned once per connection). Turn off behind a pooler that cannot keep them (PgBouncer < 1.21 in transaction mode).',
    expects: 'true or false',
    parse: bool,
    fallback: true,
  },
  DATABASE_STARTUP_TIMEOUT: seconds('How long start-up keeps retrying an unreachable database before giving up.', 30, 0, 3600),
  REDIS_URL: {
    doc: 'Redis for rate-limit counters shared by several instances.',
    expects: 'a redis:// or rediss:// URL',
    parse: redisUrl,
    fallback: undefined as string | undefined,
    docDefault: '(in-process counters)',
  },
} satisfies Record<string, Setting<unknown>>;

export const loggingSettings = {
  LOG_LEVEL: {
    doc: 'pino log level.',
    expects: 'one of fatal, error, warn, info, debug, trace, silent',
    parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    fallback: 'info',
  },
} satisfies Record<string, Setting<unknown>>;

export const shutdownSettings = {
  SHUTDOWN_TIMEOUT: seconds('Grace period for in-flight requests on SIGTERM/SIGINT.', 10, 0, 600),
} satisfies Record<string, Setting<unknown>>;
