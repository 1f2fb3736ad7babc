// Server-side cost, read from outside the server: CPU time and RSS of a child process from /proc
// (Linux), so Gatehouse, the peer and the baselines are measured identically and nothing runs in
// their event loops while they are under load.
import { readFileSync, readdirSync } from 'node:fs';

/** USER_HZ: /proc/<pid>/stat counts CPU time in clock ticks; 100 on every Linux we run on. */
const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the command name (which may contain spaces): [0] state, [1] ppid, … */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime of a process (`<pid>`) or of one of its threads (`<pid>/task/<tid>`), in seconds. */
function ownCpuSeconds(statPath: number | string): number {
  const fields = statFields(statPath);
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds (user + system) the process has used so far, all its threads together. */
export const cpuSeconds = (pid: number): number => ownCpuSeconds(pid);

/**
 * CPU seconds used so far by a server that forks a process per connection (the PostgreSQL postmaster): the root's
 * own user + system time, plus cutime + cstime (children it has already reaped, so a backend that exits during a
 * window still counts), plus user + system time of every live direct child (backends, background workers).
 * The difference of two readings is the tree's CPU between them, whichever children came and went.
 */
export function processTreeCpuSeconds(rootPid: number): number {
  const root = statFields(rootPid);
  let ticks = Number(root[11]) + Number(root[12]) + Number(root[13]) + Number(root[14]);
  const parent = String(rootPid);
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry) || entry === parent) continue;
    let fields: string[];
    try {
      fields = statFields(entry);
    } catch {
      continue; // exited while we scanned
    }
    if (fields[1] === parent) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}

/**
 * CPU seconds of the process's main thread alone (its task has the process id): in Node the event loop, which
 * saturates at one core however much CPU the libuv thread pool (argon2, WebCrypto) and V8's GC threads add.
 */
export const mainThreadCpuSeconds = (pid: number): number => ownCpuSeconds(`${pid}/task/${pid}`);

/** Resident set size in MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

export interface UsageWindow {
  /** Server CPU over the window, in percent of one core (200 = both cores of a 2-core machine). */
  cpuPercent: number;
  cpuSeconds: number;
  /** CPU of the server's main thread (event loop) alone, percent of one core; the rest of cpuPercent is helper threads. */
  mainThreadCpuPercent: number;
  /** PostgreSQL server CPU (postmaster + backends) over the run, percent of one core; only for subjects on the cluster. */
  dbCpuPercent?: number;
  dbCpuSeconds?: number;
  rssMaxMiB: number;
  rssEndMiB: number;
  samples: { t: number; rssMiB: number }[];
}

/** Samples a process while `work` runs: CPU delta over the window and RSS every `intervalMs`. */
export async function measureUsage<T>(pid: number, work: () => Promise<T>, intervalMs = 250): Promise<{ result: T; usage: UsageWindow }> {
  const started = performance.now();
  const cpu0 = cpuSeconds(pid);
  const main0 = mainThreadCpuSeconds(pid);
  const samples: { t: number; rssMiB: number }[] = [];
  const sample = () => samples.push({ t: (performance.now() - started) / 1000, rssMiB: rssMiB(pid) });
  sample();
  const timer = setInterval(sample, intervalMs);
  try {
    const result = await work();
    sample();
    const wall = (performance.now() - started) / 1000;
    const used = cpuSeconds(pid) - cpu0;
    const usedByMain = mainThreadCpuSeconds(pid) - main0;
    return {
      result,
      usage: {
        cpuPercent: (used / wall) * 100,
        cpuSeconds: used,
        mainThreadCpuPercent: (usedByMain / wall) * 100,
        rssMaxMiB: Math.max(...samples.map((s) => s.rssMiB)),
        rssEndMiB: samples.at(-1)?.rssMiB ?? Number.NaN,
        samples,
      },
    };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Proportional set size in MiB, from /proc/<pid>/smaps_rollup: every page counted once in total, a page shared by
 * n processes counted 1/n in each. NaN if the process has gone (or its memory map cannot be read).
 */
export function pssMiB(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The process and all its descendants (children, their children, …) alive now. */
export function processTree(rootPid: number): number[] {
  const children = new Map<string, string[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    let ppid: string;
    try {
      ppid = statFields(entry)[1]!;
    } catch {
      continue; // exited while we scanned
    }
    const list = children.get(ppid);
    if (list) list.push(entry);
    else children.set(ppid, [entry]);
  }
  const tree: number[] = [];
  const queue = [String(rootPid)];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    tree.push(Number(pid));
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/**
 * Memory of a server that forks a process per connection (the PostgreSQL postmaster and its backends), in MiB:
 * the sum of PSS over its process tree. Summing RSS instead would count the shared memory (shared_buffers) and the
 * shared binary once per backend; PSS divides each shared page among the processes mapping it, so the sum counts
 * it once. A process that exits between the scan and the read adds nothing.
 */
export function processTreePssMiB(rootPid: number): number {
  return processTree(rootPid).reduce((sum, pid) => {
    const pss = pssMiB(pid);
    return Number.isNaN(pss) ? sum : sum + pss;
  }, 0);
}

/** One reading of a server and its database server: the server's RSS and the database tree's summed PSS, MiB. */
export interface FootprintSample {
  t: number;
  serverRssMiB: number;
  databasePssMiB: number;
  totalMiB: number;
}

export function footprint(serverPid: number, databasePid: number, t = 0): FootprintSample {
  const serverRss = rssMiB(serverPid);
  const databasePss = processTreePssMiB(databasePid);
  return { t, serverRssMiB: serverRss, databasePssMiB: databasePss, totalMiB: serverRss + databasePss };
}

/** Samples footprint() every `intervalMs` while `work` runs (and once before and after); the peak is the largest total. */
export async function measureFootprint<T>(
  serverPid: number,
  databasePid: number,
  work: () => Promise<T>,
  intervalMs = 500,
): Promise<{ result: T; samples: FootprintSample[]; peak: FootprintSample }> {
  const started = performance.now();
  const samples: FootprintSample[] = [];
  const sample = () => samples.push(footprint(serverPid, databasePid, (performance.now() - started) / 1000));
  sample();
  const timer = setInterval(sample, intervalMs);
  try {
    const result = await work();
    sample();
    const peak = samples.reduce((a, b) => (b.totalMiB > a.totalMiB ? b : a));
    return { result, samples, peak };
  } finally {
    clearInterval(timer);
  }
}
