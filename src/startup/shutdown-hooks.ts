// Work the process does last at a graceful shutdown, after the server and the database have closed, for
// what main.ts started before the server existed (the tracing SDK flushing its buffered spans).
const hooks: (() => Promise<void>)[] = [];

export function onShutdown(hook: () => Promise<void>): void {
  hooks.push(hook);
}

/** Runs every hook; one failing does not keep the others from running (the first error is thrown after). */
export async function runShutdownHooks(): Promise<void> {
  const results = await Promise.allSettled(hooks.map((hook) => hook()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
