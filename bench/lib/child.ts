// Servers under test run in child processes (forked with tsx), so their CPU and RSS are theirs alone and
// the load generator never shares their event loop. Parent and child talk over the IPC channel with a
// tiny request/response protocol used for set-up only (never while load is running).
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { NOT_RUNNABLE_PREFIX, NotRunnable } from './not-runnable.js';

export interface ChildServer {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  call<T = unknown>(method: string, params?: unknown): Promise<T>;
  /** The child's last output lines (for error reports). */
  output(): string;
  stop(): Promise<void>;
}

type Reply = { id: number; result?: unknown; error?: string } | { ready: { port: number } } | { failed: string };

export interface StartOptions {
  env?: Record<string, string>;
  /** Extra node flags, e.g. --cpu-prof. */
  execArgv?: string[];
  timeoutMs?: number;
}

export async function startChild(name: string, entry: URL, options: StartOptions = {}): Promise<ChildServer> {
  const child = fork(fileURLToPath(entry), [], {
    execArgv: ['--import', 'tsx', ...(options.execArgv ?? [])],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let tail = '';
  const keep = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-8_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const port = await waitReady(name, child, () => tail, options.timeoutMs ?? 300_000);
  return wrap(name, child, port, () => tail);
}

function waitReady(name: string, child: ChildProcess, tail: () => string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start within ${timeoutMs} ms\n${tail()}`)), timeoutMs);
    const onMessage = (m: Reply) => {
      if ('ready' in m) done(() => resolve(m.ready.port));
      else if ('failed' in m) fail(new Error(`${name} failed to start: ${m.failed}\n${tail()}`));
    };
    const onExit = (code: number | null) => fail(new Error(`${name} exited (${code}) before it was ready\n${tail()}`));
    const done = (f: () => void) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      f();
    };
    const fail = (e: Error) =>
      done(() => {
        child.kill('SIGKILL');
        reject(e);
      });
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

function wrap(name: string, child: ChildProcess, port: number, tail: () => string): ChildServer {
  let next = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (m: Reply) => {
    if (!('id' in m)) return;
    const waiter = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) {
      const notRunnable = m.error.startsWith(NOT_RUNNABLE_PREFIX);
      waiter?.reject(notRunnable ? new NotRunnable(m.error.slice(NOT_RUNNABLE_PREFIX.length)) : new Error(`${name}: ${m.error}`));
    } else waiter?.resolve(m.result);
  });
  child.on('exit', (code) => {
    for (const w of pending.values()) w.reject(new Error(`${name} exited (${code})\n${tail()}`));
    pending.clear();
  });
  return {
    name,
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    output: tail,
    call<T>(method: string, params?: unknown) {
      if (child.exitCode !== null) return Promise.reject(new Error(`${name} is not running\n${tail()}`));
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, method, params });
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      // A clean exit lets --cpu-prof write its profile; SIGKILL only if the child hangs.
      child.send({ id: 0, method: 'exit' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
