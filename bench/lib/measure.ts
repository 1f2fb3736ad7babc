// Alternating A/B measurement: a warm-up of every subject, then `runs` rounds in which every subject runs
// once, the order rotating each round so no subject always runs first (or last) on a noisy machine.
// Medians over the measured runs are what the report shows.
import { measureUsage, processTreeCpuSeconds } from './proc-stats.js';
import { runLoad } from './load.js';
import { median } from './stats.js';
import type { Environment, StatementTotals } from './environment.js';
import type { RunRecord, Settings, Subject, SubjectSummary } from '../scenarios/scenario.js';

export async function measure(subjects: Subject[], settings: Settings, env: Environment, log: (m: string) => void): Promise<SubjectSummary[]> {
  const rate = new Map(subjects.map((s) => [s.key, s.initialRate ?? 1_000]));
  const records = new Map<string, RunRecord[]>(subjects.map((s) => [s.key, []]));
  const warmupErrors = new Map<string, number>(subjects.map((s) => [s.key, 0]));

  const once = async (subject: Subject, seconds: number): Promise<RunRecord> => {
    const connections = subject.connections ?? settings.connections;
    // Quick mode only proves a scenario runs: small pools of single-use values keep set-up short.
    const expectedRate = settings.quick ? Math.min(rate.get(subject.key)!, 150) : rate.get(subject.key)!;
    const spec = await subject.load({ seconds, connections, expectedRate });
    const before = subject.statementsDatabase ? await env.statementCalls(subject.statementsDatabase) : undefined;
    // The subject's database server (PostgreSQL, or the peer's redis-server) runs on the same machine: its CPU
    // (postmaster + backends, or redis-server with its AOF-rewrite children) over the same window.
    const dbPid = subject.statementsDatabase !== undefined ? await env.postgresPid() : await env.databasePid(subject.server);
    const db0 = dbPid !== undefined ? { at: performance.now(), cpu: processTreeCpuSeconds(dbPid) } : undefined;
    const { result, usage } = await measureUsage(subject.server.pid, () => ('drive' in spec ? spec.drive() : runLoad(spec, { connections, seconds })));
    const db = dbPid !== undefined && db0 ? databaseUsage(dbPid, db0) : undefined;
    const after = subject.statementsDatabase ? await env.statementCalls(subject.statementsDatabase) : undefined;
    rate.set(subject.key, Math.max(rate.get(subject.key)!, result.rps));
    const { samples: _samples, ...window } = usage;
    const statements = before && after && result.requests > 0 ? perRequest(before, after, result.requests) : undefined;
    const statementsPerRequest = statements?.reduce((n, s) => n + s.perRequest, 0);
    return {
      load: result,
      usage: { ...window, ...db },
      ...(statements ? { statementsPerRequest, statements: statements.filter((s) => s.perRequest >= 0.01).slice(0, 12) } : {}),
    };
  };

  if (settings.warmupSeconds > 0) {
    for (const subject of subjects) {
      log(`  warm-up ${subject.label} (${settings.warmupSeconds} s)`);
      const r = await once(subject, settings.warmupSeconds);
      warmupErrors.set(subject.key, r.load.errors);
    }
  }
  for (let round = 0; round < settings.runs; round++) {
    const order = subjects.map((_, i) => subjects[(i + round) % subjects.length]!);
    for (const subject of order) {
      const r = await once(subject, settings.seconds);
      log(
        `  run ${round + 1}/${settings.runs} ${subject.label}: ${Math.round(r.load.rps)} req/s, p99 ${Math.round(r.load.p99)} ms, ` +
          `${r.load.errors} errors, cpu ${Math.round(r.usage.cpuPercent)}% (main thread ${Math.round(r.usage.mainThreadCpuPercent)}%)` +
          (r.usage.dbCpuPercent !== undefined ? `, db cpu ${Math.round(r.usage.dbCpuPercent)}%` : ''),
      );
      records.get(subject.key)!.push(r);
    }
  }
  return subjects.map((s) => summarise(s, records.get(s.key)!, warmupErrors.get(s.key)!));
}

/** Database server CPU since `start` (read just before the run), in percent of one core over the same wall time. */
function databaseUsage(pid: number, start: { at: number; cpu: number }): { dbCpuPercent: number; dbCpuSeconds: number } | undefined {
  try {
    const used = processTreeCpuSeconds(pid) - start.cpu;
    const wall = (performance.now() - start.at) / 1000;
    return { dbCpuPercent: (used / wall) * 100, dbCpuSeconds: used };
  } catch {
    return undefined; // the server went away during the run
  }
}

/** Requests per CPU-second; NaN when no CPU was measured. */
const perCpuSecond = (rps: number, cpuPercent: number) => (cpuPercent > 0 ? rps / (cpuPercent / 100) : Number.NaN);

/**
 * Statement calls made during a run, per request, with each statement's mean execution and planning time
 * (µs per call, inside the backend) and WAL bytes per call (the harness's own pg_stat_statements reads are excluded).
 */
function perRequest(before: Map<string, StatementTotals>, after: Map<string, StatementTotals>, requests: number): NonNullable<RunRecord['statements']> {
  const round = (n: number) => Math.round(n * 10) / 10;
  return [...after]
    .map(([query, a]) => {
      const b = before.get(query) ?? { calls: 0, execMs: 0, planMs: 0, walBytes: 0 };
      const calls = a.calls - b.calls;
      return {
        query: query.replace(/\s+/g, ' ').slice(0, 160),
        perRequest: calls / requests,
        execUs: calls > 0 ? round(((a.execMs - b.execMs) * 1000) / calls) : 0,
        planUs: calls > 0 ? round(((a.planMs - b.planMs) * 1000) / calls) : 0,
        walBytes: calls > 0 ? Math.round((a.walBytes - b.walBytes) / calls) : 0,
      };
    })
    .filter((s) => s.perRequest > 0 && !s.query.includes('pg_stat_statements'))
    .sort((a, b) => b.perRequest - a.perRequest);
}

export function summarise(subject: Pick<Subject, 'key' | 'label' | 'role'>, runs: RunRecord[], warmupErrors = 0): SubjectSummary {
  const spr = runs.map((r) => r.statementsPerRequest).filter((v): v is number => v !== undefined);
  const dbCpu = runs.map((r) => r.usage.dbCpuPercent).filter((v): v is number => v !== undefined);
  return {
    key: subject.key,
    label: subject.label,
    role: subject.role,
    runs,
    warmupErrors,
    errors: runs.reduce((n, r) => n + r.load.errors, 0),
    median: {
      rps: median(runs.map((r) => r.load.rps)),
      perCpuSecond: median(runs.map((r) => perCpuSecond(r.load.rps, r.usage.cpuPercent))),
      perCpuSecondWithDb: median(runs.map((r) => perCpuSecond(r.load.rps, r.usage.cpuPercent + (r.usage.dbCpuPercent ?? 0)))),
      p50: median(runs.map((r) => r.load.p50)),
      p99: median(runs.map((r) => r.load.p99)),
      cpuPercent: median(runs.map((r) => r.usage.cpuPercent)),
      mainThreadCpuPercent: median(runs.map((r) => r.usage.mainThreadCpuPercent)),
      ...(dbCpu.length > 0 ? { dbCpuPercent: median(dbCpu) } : {}),
      rssMaxMiB: Math.max(...runs.map((r) => r.usage.rssMaxMiB)),
      ...(spr.length > 0 ? { statementsPerRequest: median(spr) } : {}),
    },
  };
}
