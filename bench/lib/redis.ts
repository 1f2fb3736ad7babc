// A throwaway redis-server for the peer, configured as node-oidc-provider would be run in production with
// Redis: the append-only file on, fsynced every second (`appendonly yes`, `appendfsync everysec`), no RDB
// snapshots, loopback only, its files in a temporary directory. Started and stopped by the bench.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from '../../scripts/pg-cluster.mjs';

export interface RedisServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startRedis(dir: string): Promise<RedisServer> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', ''];
  const child: ChildProcess = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      output = (output + d.toString()).slice(-4_000);
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
