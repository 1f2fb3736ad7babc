// Two real Gatehouse processes behind one issuer URL, on one PostgreSQL database and one Redis, as a load
// balancer would see them (README "Running several instances"). Clients and users are made with the CLI
// against the same DATABASE_URL, as an operator would. Not a test file itself.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/pg-cluster.mjs';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const run = promisify(execFile);

export interface Instances {
  a: ServerProcess;
  b: ServerProcess;
  /** The one issuer both instances answer for. */
  issuer: string;
  /** The environment both share (DATABASE_URL, REDIS_URL, KEY_ENCRYPTION_KEY, ISSUER, …). */
  env: Record<string, string>;
  cli(...argv: string[]): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** The `gatehouse` CLI run as an operator would, against the instances' shared environment. */
export const cliWith =
  (env: Record<string, string>) =>
  async (...argv: string[]): Promise<Record<string, unknown>> => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'test/helpers/cli-entry.ts', ...argv], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  };

export async function startInstances(shared: { databaseUrl: string; redisUrl?: string; env?: Record<string, string> }): Promise<Instances> {
  const [portA, portB] = [await freePort(), await freePort()];
  const issuer = `http://127.0.0.1:${portA}`;
  const env: Record<string, string> = {
    DATABASE_URL: shared.databaseUrl,
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    ISSUER: issuer,
    LOG_LEVEL: 'info',
    ...(shared.redisUrl ? { REDIS_URL: shared.redisUrl } : {}),
    ...shared.env,
  };
  const cli = cliWith(env);
  // One migrates and creates the first keys, then the second joins (both would also be safe at once).
  const a = await startServerProcess(env, { port: portA });
  const b = await startServerProcess(env, { port: portB });
  return {
    a,
    b,
    issuer,
    env,
    cli,
    async stop() {
      await Promise.all([a.stop(), b.stop()]);
    },
  };
}
