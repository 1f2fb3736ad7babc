// The child side of lib/child.ts: announce readiness, answer set-up calls, exit cleanly on request.
import { NOT_RUNNABLE_PREFIX, NotRunnable } from './not-runnable.js';

const describe = (error: unknown): string =>
  error instanceof NotRunnable ? NOT_RUNNABLE_PREFIX + error.message : error instanceof Error ? error.message : String(error);
export type Handlers = Record<string, (params: never) => unknown>;

export function serveRpc(port: number, handlers: Handlers, close: () => Promise<void>): void {
  process.on('message', (m: { id: number; method: string; params?: unknown }) => {
    if (m.method === 'exit') {
      close().finally(() => process.exit(0));
      return;
    }
    const handler = handlers[m.method];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown set-up call ${m.method}`);
        return (handler as (p: unknown) => unknown)(m.params);
      })
      .then(
        (result) => process.send!({ id: m.id, result: result ?? null }),
        (error: unknown) => process.send!({ id: m.id, error: describe(error) }),
      );
  });
  // The parent is gone (crashed or killed): do not linger as an orphan server.
  process.on('disconnect', () => process.exit(0));
  process.send!({ ready: { port } });
}

export function reportStartFailure(error: unknown): void {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (process.send) process.send({ failed: message });
  else console.error(message);
  process.exitCode = 1;
  setImmediate(() => process.exit(1));
}
