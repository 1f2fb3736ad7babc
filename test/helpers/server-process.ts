// Runs `src/main.ts` as a real child process (what `npm start` runs) and waits for its ready log line.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../scripts/pg-cluster.mjs';
import { spawnTracked } from './children.js';

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

// Absolute, so that a server started in another working directory (`cwd`) finds the loader and the sources.
const TSX = import.meta.resolve('tsx');
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/**
 * `env` is added to this process's environment; `cwd` runs the server from another directory (where the default
 * DATA_DIR, ./data, then lives), without any DATA_DIR this process may have.
 */
export async function startServerProcess(
  env: Record<string, string>,
  { port, cwd, preload = [] }: { port?: number; cwd?: string; preload?: string[] } = {},
): Promise<ServerProcess> {
  const p = port ?? (await freePort());
  const { DATA_DIR: _inherited, ...inherited } = process.env;
  // `preload`: more modules given to `--import` after the TypeScript loader (absolute paths or file URLs).
  const child = spawnTracked(process.execPath, ['--import', TSX, ...preload.flatMap((p) => ['--import', p]), MAIN], {
    // METRICS_PORT 0: a port of the system's choosing, since several servers run at once (a test names one to reach it).
    env: {
      ...(cwd ? inherited : process.env),
      PORT: String(p),
      HOST: '127.0.0.1',
      ISSUER: `http://127.0.0.1:${p}`,
      LOG_LEVEL: 'info',
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd ? { cwd } : {}),
  });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('"gatehouse ready"')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before ready:\n${out}`)));
  });
  await ready;
  return {
    child,
    port: p,
    url: `http://127.0.0.1:${p}`,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}
