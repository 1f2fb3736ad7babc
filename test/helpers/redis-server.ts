// A throwaway redis-server (Debian package) on a free loopback port, without persistence.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from '../../scripts/pg-cluster.mjs';
import { spawnTracked } from './children.js';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  restart(): Promise<void>;
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawnTracked('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out}`)));
  });
  return child;
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child = await launch(port);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    async restart() {
      await stop();
      child = await launch(port);
    },
  };
}
