// Every process a test spawns is registered here and killed when the test process exits, so a failed
// assertion that skips its cleanup can never leave a server running that keeps the test file (and CI) alive.
import { spawn, type ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();

process.once('exit', () => {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

export function spawnTracked(...args: Parameters<typeof spawn>): ChildProcess {
  const child = spawn(...args);
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}
