// Gatehouse exactly as `npm start` runs it: `node dist/src/main.js`, compiled JavaScript, no tsx loader and no
// bench routes. The footprint and start-up targets concern what users run; the tsx harness (servers/gatehouse.ts)
// carries the TypeScript loader's worker thread and its transform cache on top (~30 MB RSS, slower starts).
// It takes no set-up calls: a scenario prepares the DATA_DIR through the harness first, then restarts into this.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../../scripts/build-if-needed.mjs';
import type { ChildServer } from './child.js';

const ENTRY = fileURLToPath(new URL('../../dist/src/main.js', import.meta.url));
/** Readiness is polled: the built server logs nothing below LOG_LEVEL=warn, which the bench keeps for load. */
const POLL_MS = 20;

export async function startBuiltGatehouse(name: string, options: { env: Record<string, string>; port: number; timeoutMs?: number }): Promise<ChildServer> {
  await ensureBuilt({ quiet: true });
  // METRICS_PORT 0: the metrics listener on a port of the system's choosing, never colliding with another server.
  const child = spawn(process.execPath, [ENTRY], { env: { ...process.env, METRICS_PORT: '0', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-8_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = performance.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}) before it was ready\n${tail}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer /healthz within ${options.timeoutMs ?? 120_000} ms\n${tail}`);
    }
    await delay(POLL_MS);
  }
  return {
    name,
    pid: child.pid!,
    url,
    output: () => tail,
    call: () => Promise.reject(new Error(`${name} is the built server: it takes no set-up calls`)),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
