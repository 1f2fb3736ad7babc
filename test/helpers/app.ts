// Starts the real app on a loopback port against a fresh database, as a black box for HTTP tests.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { parseConfig, type Config } from '../../src/config.js';
import { systemClock, type Clock } from '../../src/clock.js';
import type { Database } from '../../src/storage/driver/database.js';
import type { Core } from '../../src/core.js';
import type { OutboundPolicy } from '../../src/http/outbound/outbound-policy.js';
import { createTestDatabase } from './database.js';
import { freePort } from '../../scripts/pg-cluster.mjs';

export interface TestApp {
  app: FastifyInstance;
  url: string;
  config: Config;
  core: Core;
  database: Database;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  database?: Database;
  /** A stream receiving the JSON log lines (logging is off otherwise). */
  logStream?: NodeJS.WritableStream;
  /** Adds routes or hooks before the app starts listening (test-only routes). */
  configure?: (app: FastifyInstance) => void | Promise<void>;
  /** Outbound policy for client-steered requests (jwks_uri); strict unless a test needs its loopback servers. */
  outbound?: OutboundPolicy;
}

export function testConfig(port: number, env: Record<string, string> = {}): Config {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
  return parseConfig({
    NODE_ENV: 'test',
    PORT: String(port),
    HOST: '127.0.0.1',
    ISSUER: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'info',
    // Event-loop shedding reacts to machine load (PGlite runs its queries on the main thread); the
    // tests of that defence turn it on explicitly, every other test must not depend on the machine's load.
    OVERLOAD_MAX_EVENT_LOOP_DELAY: '0',
    ...env,
  });
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  // A test that names its own PORT (e.g. to run under ISSUER http://localhost:PORT for WebAuthn) listens there.
  const port = options.env?.PORT !== undefined ? Number(options.env.PORT) : await freePort();
  const config = testConfig(port, options.env);
  const database = options.database ?? (await createTestDatabase());
  const app = await buildApp({
    config,
    database,
    clock: options.clock ?? systemClock,
    logger: options.logStream ?? false,
    ...(options.outbound ? { outbound: options.outbound } : {}),
  });
  await options.configure?.(app);
  await app.listen({ port, host: '127.0.0.1' });
  return {
    app,
    url: config.ISSUER,
    config,
    core: app.core,
    database,
    async close() {
      await app.close();
      if (!options.database) await database.close();
      rmSync(config.DATA_DIR, { recursive: true, force: true });
    },
  };
}
