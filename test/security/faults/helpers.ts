// Fault-injection fixtures: a server process on PostgreSQL, clients and users written straight into its
// database, and small HTTP helpers that never throw on a dead connection (they return undefined).
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../src/clock.js';
import type { Core } from '../../../src/core.js';
import { openPostgres, type Database } from '../../../src/storage/driver/database.js';
import { registerClient, basicAuth, type RegisteredClient } from '../../oauth/fixtures.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { resourceRegistry } from '../../../src/oauth/resources/registry.js';
import { resourceServersRepository } from '../../../src/storage/repositories/resource-servers-repository.js';

export interface FaultEnv {
  env: Record<string, string>;
  port?: number;
}

export function serverEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'gatehouse-fault-')),
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    RATE_LIMIT_ENABLED: 'false',
    OVERLOAD_MAX_EVENT_LOOP_DELAY: '0',
    LOG_LEVEL: 'info', // startServerProcess waits for the info-level "gatehouse ready" line
    ...extra,
  };
}

export async function startServer(env: Record<string, string>, port?: number): Promise<ServerProcess> {
  return startServerProcess(env, port === undefined ? {} : { port });
}

/** Registers clients through the same validation path as the CLI, straight into the server's database. */
export async function seedClients(database: Database): Promise<{ service: RegisteredClient; app: RegisteredClient }> {
  // The server registered its built-in resource servers at start; the scopes are checked against them.
  const resources = resourceRegistry(resourceServersRepository(database.db), systemClock, 0);
  const core = { db: database.db, clock: systemClock, resources } as unknown as Core;
  const service = await registerClient(core, { client_name: 'fault service', grant_types: ['client_credentials'], scope: 'payments:write orders:read' });
  const app = await registerClient(
    core,
    {
      client_name: 'fault app',
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: ['https://client.example/cb'],
      scope: 'openid offline_access',
      token_endpoint_auth_method: 'none',
    },
    { skipConsent: true },
  );
  return { service, app };
}

export const openDatabase = (url: string) => openPostgres(url, 3);

export async function serviceToken(base: string, client: RegisteredClient): Promise<string> {
  const response = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(client.id, client.secret) },
    body: 'grant_type=client_credentials&scope=payments:write',
  });
  if (response.status !== 200) throw new Error(`client_credentials failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

export interface Outcome {
  status: number;
  headers: Headers;
  json: Record<string, unknown> | undefined;
}

/** A request whose connection may die: undefined when no answer came back. */
export async function attempt(url: string, init: RequestInit): Promise<Outcome | undefined> {
  try {
    const response = await fetch(url, init);
    const text = await response.text();
    let json: Record<string, unknown> | undefined;
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, json };
  } catch {
    return undefined;
  }
}
